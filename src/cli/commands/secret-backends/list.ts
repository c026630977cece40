import { listVerb } from '../list-verb.js';
import { BACKENDS_PATH } from './resolve.js';
import { BACKEND_COLUMNS } from './views.js';

/** `svc secret-backends list`: `GET /settings/secrets-backends`, the default first. */
export const { define, invoke } = listVerb({
  path: BACKENDS_PATH,
  description: 'Every secret backend of the platform, the default first, with how many secrets each keeps.',
  columns: BACKEND_COLUMNS,
  empty: 'No secret backends.',
});
