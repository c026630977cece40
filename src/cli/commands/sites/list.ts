import { listVerb } from '../list-verb.js';
import { SITE_COLUMNS } from './types.js';

/** `svc sites list`: `GET /sites`. */
export const { define, invoke } = listVerb({
  path: '/sites',
  description: "The organization's live sites and the shared organization's, by name.",
  q: 'only those whose name, description or address contains this',
  columns: SITE_COLUMNS,
  empty: 'No sites.',
});
