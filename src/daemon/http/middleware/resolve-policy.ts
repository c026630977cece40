import type { EffectivePolicies } from '../../authz/effective-policies.js';
import type { Step } from '../types.js';

/** The route's effective policy, decided once per request; every later step reads it from the state. */
export function resolvePolicy(policies: EffectivePolicies): Step {
  return function resolvePolicyStep(ctx) {
    ctx.state.policy = policies.policyFor(ctx.state.mounted!.route);
  };
}
