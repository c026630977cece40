import { defineDecision, invokeDecision } from './decide.js';

export const define = defineDecision(
  'Approve an approval (--comment WHY); exit 5 when you may not (your own run, wrong role), 9 when it is no longer pending or you already decided.',
);
export const invoke = invokeDecision('approve');
