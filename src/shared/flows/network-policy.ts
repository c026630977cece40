import type { EgressMode, FlowNetworkPolicy } from './definition.js';

/** deny-all < allow-listed < open. */
export const EGRESS_OPENNESS: Readonly<Record<EgressMode, number>> = { 'deny-all': 0, 'allow-listed': 1, open: 2 };

/**
 * What a flow without a `network_policy` allows: everything, as a container network does by default.
 * Only an explicit policy restricts, and widening is measured against it.
 */
export const DEFAULT_NETWORK_POLICY: FlowNetworkPolicy = Object.freeze({ egress_mode: 'open', egress_allow: [], egress_deny: [] });

export function effectivePolicy(policy: FlowNetworkPolicy | undefined): Required<FlowNetworkPolicy> {
  const p = policy ?? DEFAULT_NETWORK_POLICY;
  return { egress_mode: p.egress_mode, egress_allow: p.egress_allow ?? [], egress_deny: p.egress_deny ?? [] };
}
