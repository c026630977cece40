import { deleteVerb } from '../delete-verbs.js';
import { endpointArgument, endpointId } from './resolve.js';

/** `svc webhooks delete ENDPOINT`: `DELETE /webhooks/{webhook_id}`, a soft delete (its trigger answers 404 until restored). */
export const { define, invoke } = deleteVerb({
  noun: 'webhook endpoint',
  collection: '/webhooks',
  idOf: endpointId,
  effect: 'its trigger stops answering',
  restore: (id) => `svc webhooks restore ${id}`,
  description: 'Soft-delete an endpoint (its trigger answers 404; restorable).',
  argument: endpointArgument,
});
