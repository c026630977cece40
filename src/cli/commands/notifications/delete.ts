import { deleteVerb } from '../delete-verbs.js';
import { destinationId } from './fields.js';

/** `svc notifications destinations delete DESTINATION`: `DELETE /notifications/destinations/{destination_id}` (soft). */
export const { define, invoke } = deleteVerb({
  noun: 'notification destination',
  collection: '/notifications/destinations',
  idOf: destinationId,
  effect: 'nothing more is sent to it, and its messages not yet sent are given up',
  description: 'Soft-delete a notification destination: nothing more is sent to it (restorable through the API).',
  argument: (command) => command.argument('<destination>', 'destination id, or its name'),
});
