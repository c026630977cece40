import { listVerb } from '../list-verb.js';
import { STATE_COLUMNS } from './types.js';

/** `svc iac-states list`: `GET /iac-states`. */
export const { define, invoke } = listVerb({
  path: '/iac-states',
  description: "The organization's IaC states: newest version, serial, size and who holds the lock. Never a document.",
  q: 'only names containing this',
  columns: STATE_COLUMNS,
  empty: 'No IaC states.',
});
