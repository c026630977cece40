/**
 * The shape of a flow definition: what a draft holds and what a commit freezes into a version. The
 * runtime schema (zod) and the graph rules live in `definition-schema.ts`; run admission reads `inputs`
 * and `target_roles` from a committed version.
 */

/** One step of the graph: a handler and its configuration (checked against the handler catalogue). */
export interface FlowStep {
  /** Unique in the flow: `^[a-z][a-z0-9_]{0,63}$`. Edges and handler fields (`artifact_step_id`, `plan_step`) name steps by it. */
  readonly id: string;
  readonly name?: string;
  /** A handler id of the catalogue (`src/shared/flows/step-handlers`). */
  readonly handler: string;
  readonly config: Readonly<Record<string, unknown>>;
  /** The target role whose devices the step runs against; absent for steps without device targets. */
  readonly target_role?: string | null;
  /** A gate before the step runs: the run waits (`awaiting_approval`) until approvers decide. */
  readonly approval?: ApprovalGate | null;
}

export const APPROVAL_TIMEOUT_ACTIONS = ['reject', 'approve'] as const;
export type ApprovalTimeoutAction = (typeof APPROVAL_TIMEOUT_ACTIONS)[number];

/**
 * A step's approval gate; every field may be left out (`GET /approvals/node-defaults` gives the defaults).
 * Separation of duties goes beyond the platform roles: the run's starter may not approve unless
 * `allow_starter`, `required_approvals` distinct people must approve, and `approver_role` narrows who may.
 */
export interface ApprovalGate {
  /** Distinct approvers needed, 1-10 (default 1); one rejection rejects. */
  readonly required_approvals?: number;
  /** The organization membership role an approver must hold in the run's organization; null: any approver. */
  readonly approver_role?: string | null;
  /** Whether the user who started the run may approve it (default false). */
  readonly allow_starter?: boolean;
  /** Seconds the approval stays open; 0 never expires; default from node-defaults. */
  readonly timeout_seconds?: number;
  /** What a timeout decides (default `reject`). */
  readonly timeout_action?: ApprovalTimeoutAction;
  /** Shown to approvers; templates such as `{{ inputs.x }}` allowed (the worker renders it). */
  readonly message?: string;
}

/** A directed edge: `to` runs after `from`. */
export interface FlowEdge {
  readonly from: string;
  readonly to: string;
}

export const FLOW_INPUT_TYPES = ['string', 'text', 'integer', 'number', 'boolean', 'select', 'multiselect', 'json'] as const;
export type FlowInputType = (typeof FLOW_INPUT_TYPES)[number];

/** One field of the flow's input interface: what a run's `params` must satisfy. */
export interface FlowInput {
  /** `^[a-zA-Z_][a-zA-Z0-9_]{0,63}$`; the key in `params` and in `{{ inputs.<name> }}`. */
  readonly name: string;
  readonly type: FlowInputType;
  readonly label?: string;
  readonly description?: string;
  readonly required?: boolean;
  readonly default?: unknown;
  /** For `select` / `multiselect`: the allowed values. */
  readonly options?: readonly string[];
  /** For `integer` / `number`: bounds; for `string` / `text`: length bounds. */
  readonly min?: number;
  readonly max?: number;
  /** For `string`: a regular expression the whole value must match. */
  readonly pattern?: string;
}

/** A named set of devices a run targets; steps pick one by `target_role`. */
export interface FlowTargetRole {
  /** `^[a-z][a-z0-9_-]{0,63}$`. */
  readonly name: string;
  readonly description?: string;
  /** A run must name at least `min_devices` (default 0) devices for it. */
  readonly min_devices?: number;
  readonly max_devices?: number | null;
}

export const EGRESS_MODES = ['open', 'allow-listed', 'deny-all'] as const;
export type EgressMode = (typeof EGRESS_MODES)[number];

/** The flow's network policy; container steps may narrow it, and only a platform admin may widen it. */
export interface FlowNetworkPolicy {
  readonly egress_mode: EgressMode;
  readonly egress_allow?: readonly string[];
  readonly egress_deny?: readonly string[];
}

export interface FlowDefinition {
  readonly steps: readonly FlowStep[];
  readonly edges: readonly FlowEdge[];
  readonly inputs: readonly FlowInput[];
  readonly target_roles: readonly FlowTargetRole[];
  readonly network_policy?: FlowNetworkPolicy;
}

export const EMPTY_DEFINITION: FlowDefinition = Object.freeze({ steps: [], edges: [], inputs: [], target_roles: [] });
