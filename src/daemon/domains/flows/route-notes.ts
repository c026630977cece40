import { flow } from '../../../shared/api/flows.js';

/** What the flow routes' documentation says alike (OpenAPI summaries and responses). */
export const narrowed = 'Host-access options and egress widening need the platform admin role (403 `restricted_option`).';
export const FLOW = { description: 'The flow', schema: flow };
export const TAGGED = { description: "The flow; `ETag` its version, for a save's or a commit's `If-Match`", schema: flow };
export const STALE = {
  description: '`If-Match` names a version of the flow saved over since (`precondition_failed`, `etag` the current one); nothing changed',
};
export const ifMatchNote =
  'With `If-Match` (the `ETag` of a read or a save) only that version is changed: another is 412 `precondition_failed`.';
