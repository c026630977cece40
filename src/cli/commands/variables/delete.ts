import { deleteVerb } from '../delete-verbs.js';
import { variableArgument, variableId } from './resolve.js';

/** `svc variables delete VARIABLE`: `DELETE /variables/{variable_id}` (soft). */
export const { define, invoke } = deleteVerb({
  noun: 'variable',
  collection: '/variables',
  idOf: variableId,
  effect: 'runs no longer get it',
  description: 'Soft-delete a variable: runs no longer get it (restorable through the API).',
  argument: variableArgument,
});
