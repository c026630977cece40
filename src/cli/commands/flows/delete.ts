import { flowId } from '../runs/resolve.js';
import { softDeleteVerb } from '../soft-delete.js';

/** `svc flows delete FLOW`: `DELETE /flows/{flow_id}` (soft). */
export const { define, invoke } = softDeleteVerb({
  noun: 'flow',
  collection: '/flows',
  idOf: flowId,
  description: 'Soft-delete a flow: hidden from lists and reads (restorable through the API).',
  argument: (command) => command.argument('<flow>', 'flow id, or its name'),
});
