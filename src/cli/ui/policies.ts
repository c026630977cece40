import { POLICIES, STRUCTURAL_POLICIES } from '../../shared/policy/policies.js';

/** The policies an override may name (the structural ones describe how a route authenticates, and are refused). */
export const OVERRIDABLE_POLICIES: readonly string[] = POLICIES.filter((p) => !STRUCTURAL_POLICIES.has(p));
