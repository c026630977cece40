import { deleteVerb } from '../delete-verbs.js';
import { credentialArgument, credentialId } from './types.js';

/** `svc registry-credentials delete CREDENTIAL`: `DELETE /registry-credentials/{credential_id}`, for good (the secret it references stays). */
export const { define, invoke } = deleteVerb({
  noun: 'registry credential',
  collection: '/registry-credentials',
  idOf: credentialId,
  effect: 'the secret it references stays',
  restore: false,
  description: 'Remove a registry login; pulls through the proxy then go to that registry anonymously. The secret it references stays.',
  argument: credentialArgument,
});
