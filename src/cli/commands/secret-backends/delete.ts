import { deleteVerb } from '../delete-verbs.js';
import { backendArgument, backendId, BACKENDS_PATH } from './resolve.js';

/** `svc secret-backends delete BACKEND`: `DELETE /settings/secrets-backends/{backend_id}`, for good. */
export const { define, invoke } = deleteVerb({
  noun: 'secret backend',
  collection: BACKENDS_PATH,
  idOf: backendId,
  effect: 'refused while secrets use it, for the default and for the built-in one',
  restore: false,
  description: 'Remove a secret backend no secret uses; the default and the seeded built-in backend cannot be removed.',
  argument: backendArgument,
});
