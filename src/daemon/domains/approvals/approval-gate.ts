import type { ApprovalTimeoutAction } from '../../../shared/flows/definition.js';

/** A step's gate with every default applied: what an approval copies when it is opened. */
export interface ResolvedGate {
  readonly required_approvals: number;
  readonly approver_role: string | null;
  readonly allow_starter: boolean;
  readonly timeout_seconds: number;
  readonly timeout_action: ApprovalTimeoutAction;
}

/** The defaults of a gate's absent fields; the timeout's comes from the setting. */
export function gateDefaults(defaultTimeoutSeconds: number): ResolvedGate {
  return {
    required_approvals: 1,
    approver_role: null,
    allow_starter: false,
    timeout_seconds: defaultTimeoutSeconds,
    timeout_action: 'reject',
  };
}

/**
 * The gate of `stepId` in a committed definition, defaults applied; undefined when the step is not there
 * or has no gate. The definition was validated when committed, so only the shapes are checked here.
 */
export function gateOf(definition: Record<string, unknown> | null, stepId: string, defaults: ResolvedGate): ResolvedGate | undefined {
  const steps = Array.isArray(definition?.steps) ? (definition.steps as Record<string, unknown>[]) : [];
  const gate = steps.find((step) => step?.id === stepId)?.approval;
  if (gate === null || typeof gate !== 'object') return undefined;
  const g = gate as Record<string, unknown>;
  return {
    required_approvals: typeof g.required_approvals === 'number' ? g.required_approvals : defaults.required_approvals,
    approver_role: typeof g.approver_role === 'string' ? g.approver_role : defaults.approver_role,
    allow_starter: typeof g.allow_starter === 'boolean' ? g.allow_starter : defaults.allow_starter,
    timeout_seconds: typeof g.timeout_seconds === 'number' ? g.timeout_seconds : defaults.timeout_seconds,
    timeout_action: g.timeout_action === 'approve' || g.timeout_action === 'reject' ? g.timeout_action : defaults.timeout_action,
  };
}
