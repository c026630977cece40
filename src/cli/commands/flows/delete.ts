import { flowId } from '../runs/resolve.js';
import { deleteVerb } from '../delete-verbs.js';

/** `svc flows delete FLOW`: `DELETE /flows/{flow_id}` (soft). */
export const { define, invoke } = deleteVerb({
  noun: 'flow',
  collection: '/flows',
  idOf: flowId,
  description: 'Soft-delete a flow: hidden from lists and reads (restorable through the API).',
  argument: (command) => command.argument('<flow>', 'flow id, or its name'),
});
