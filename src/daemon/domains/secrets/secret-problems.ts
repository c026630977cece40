import { Problem } from '../../http/problem.js';

/** Problems of the secrets domain beyond the shared ones. */
export const secretProblems = {
  /** No detail about the cause in the answer: it is in the log under the request id. */
  backendUnavailable: () =>
    new Problem(
      503,
      'secret_backend_unavailable',
      'The secret backend failed or answered nothing usable; retry later.',
      {},
      { 'Retry-After': '5' },
    ),
  unsupportedType: (type: string) =>
    new Problem(422, 'unsupported_backend_type', `Backends of type "${type}" are not available in this build.`, { type }),
};
