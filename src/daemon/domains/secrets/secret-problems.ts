import { problem } from '../../../shared/api/problem.js';

/** Problems of the secrets domain beyond the shared ones. */
export const secretProblems = {
  /** No detail about the cause in the answer: it is in the log under the request id. */
  backendUnavailable: () =>
    problem('secret_backend_unavailable', 'The secret backend failed or answered nothing usable; retry later.', {}, { 'Retry-After': '5' }),
  unsupportedType: (type: string) =>
    problem('unsupported_backend_type', `Backends of type "${type}" are not available in this build.`, { backend_type: type }),
};
