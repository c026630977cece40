import { listVerb } from '../list-verb.js';
import { CREDENTIAL_COLUMNS } from './types.js';

/** `svc registry-credentials list`: `GET /registry-credentials`. */
export const { define, invoke } = listVerb({
  path: '/registry-credentials',
  description: "The organization's logins to upstream registries, by registry (passwords appear as secret references).",
  q: 'only registries containing this',
  columns: CREDENTIAL_COLUMNS,
  empty: 'No registry credentials.',
});
