import { defineDecision, invokeDecision } from './decide.js';

export const define = defineDecision(
  'Reject an approval (--comment WHY): the run fails at once; exit 5 when you may not, 9 when it is no longer pending or you already decided.',
);
export const invoke = invokeDecision('reject');
