import { deleteVerb } from '../delete-verbs.js';

/** `svc inventory-providers delete PROVIDER_ID`: `DELETE /inventory/providers/{provider_id}` (soft). */
export const { define, invoke } = deleteVerb({
  noun: 'inventory provider',
  collection: '/inventory/providers',
  idOf: async (_client, ref) => ref,
  effect: 'it no longer syncs; what it imported stays',
  description: 'Soft-delete an inventory provider: it no longer syncs; what it imported stays (restorable through the API).',
  argument: (command) => command.argument('<provider_id>', 'the provider id (<type>:<name>[:<org_id>])'),
});
