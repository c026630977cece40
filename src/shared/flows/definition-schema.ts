import { z } from 'zod';
import { APPROVAL_TIMEOUT_ACTIONS, EGRESS_MODES, FLOW_INPUT_TYPES, type FlowDefinition } from './definition.js';
import { approvalGateIssues } from './definition-approvals.js';
import { graphIssues } from './definition-graph.js';
import { inputIssues, networkPolicyIssues, targetRoleIssues } from './definition-interface.js';
import type { DefinitionIssue } from './definition-issues.js';
import { validateStepConfig } from './step-validator.js';

export type { DefinitionIssue, DefinitionIssueCode } from './definition-issues.js';

/** Generous ceilings: they stop a pathological body, not a real flow. */
export const DEFINITION_LIMITS = { steps: 500, edges: 5000, inputs: 200, targetRoles: 50, rules: 200 } as const;

const text = (max: number) => z.string().max(max);

/**
 * The SHAPE of a flow definition: types and sizes only. Identifiers are plain strings here; their
 * format, uniqueness and the graph are rules (`validateDefinition`), so a draft may be saved while
 * half-edited and still say what is wrong with it. Absent lists default to empty.
 */
/** Bounds of an approval gate (`ApprovalGate`). */
export const APPROVAL_GATE_LIMITS = { maxRequiredApprovals: 10, maxTimeoutSeconds: 30 * 24 * 3600 } as const;

export const approvalGateSchema = z
  .object({
    required_approvals: z.number().int().min(1).max(APPROVAL_GATE_LIMITS.maxRequiredApprovals).optional(),
    approver_role: text(100).min(1).nullable().optional(),
    allow_starter: z.boolean().optional(),
    timeout_seconds: z.number().int().min(0).max(APPROVAL_GATE_LIMITS.maxTimeoutSeconds).optional(),
    timeout_action: z.enum(APPROVAL_TIMEOUT_ACTIONS).optional(),
    message: text(4000).optional(),
  })
  .strict();

export const flowStepSchema = z
  .object({
    id: text(255),
    name: text(255).optional(),
    handler: text(255),
    config: z.record(z.string(), z.unknown()).default({}),
    target_role: text(255).nullable().optional(),
    approval: approvalGateSchema.nullable().optional(),
  })
  .strict();

export const flowEdgeSchema = z.object({ from: text(255), to: text(255) }).strict();

export const flowInputSchema = z
  .object({
    name: text(255),
    type: z.enum(FLOW_INPUT_TYPES),
    label: text(255).optional(),
    description: text(10_000).optional(),
    required: z.boolean().optional(),
    default: z.unknown().optional(),
    options: z.array(text(1000)).max(1000).optional(),
    min: z.number().optional(),
    max: z.number().optional(),
    pattern: text(1000).optional(),
  })
  .strict();

export const flowTargetRoleSchema = z
  .object({
    name: text(255),
    description: text(10_000).optional(),
    min_devices: z.number().int().min(0).optional(),
    max_devices: z.number().int().min(0).nullable().optional(),
  })
  .strict();

export const flowNetworkPolicySchema = z
  .object({
    egress_mode: z.enum(EGRESS_MODES),
    egress_allow: z.array(text(255)).max(DEFINITION_LIMITS.rules).optional(),
    egress_deny: z.array(text(255)).max(DEFINITION_LIMITS.rules).optional(),
  })
  .strict();

export const flowDefinitionSchema = z
  .object({
    steps: z.array(flowStepSchema).max(DEFINITION_LIMITS.steps).default([]),
    edges: z.array(flowEdgeSchema).max(DEFINITION_LIMITS.edges).default([]),
    inputs: z.array(flowInputSchema).max(DEFINITION_LIMITS.inputs).default([]),
    target_roles: z.array(flowTargetRoleSchema).max(DEFINITION_LIMITS.targetRoles).default([]),
    network_policy: flowNetworkPolicySchema.optional(),
  })
  .strict();

/** `steps[0].config.image` from zod's `['steps', 0, 'config', 'image']`, as `validate()` writes paths. */
export function jsonPath(segments: readonly PropertyKey[], prefix = ''): string {
  const joined = segments.map((s) => (typeof s === 'number' ? `[${s}]` : `.${String(s)}`)).join('');
  return `${prefix}${joined}`.replace(/^\./, '');
}

export type ShapeResult =
  { readonly ok: true; readonly definition: FlowDefinition } | { readonly ok: false; readonly issues: DefinitionIssue[] };

/** The shape check alone (what a draft save requires); paths are relative to the definition, or under `prefix`. */
export function parseDefinitionShape(input: unknown, prefix = ''): ShapeResult {
  const result = flowDefinitionSchema.safeParse(input);
  if (result.success) return { ok: true, definition: result.data as FlowDefinition };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => ({ path: jsonPath(issue.path, prefix), message: issue.message, code: 'invalid_shape' })),
  };
}

/**
 * Every problem of a definition, each with its JSON path (`steps[2].config.image`, `edges[0].to`): the
 * shape first (nothing else is checked on a malformed definition), then the graph, the interface, the
 * network policy and each step's configuration against its handler. Empty means committable.
 */
export function validateDefinition(def: unknown): DefinitionIssue[] {
  const shape = parseDefinitionShape(def);
  if (!shape.ok) return shape.issues;
  const definition = shape.definition;
  const issues: DefinitionIssue[] = [
    ...graphIssues(definition),
    ...inputIssues(definition.inputs),
    ...targetRoleIssues(definition.target_roles),
    ...networkPolicyIssues(definition.network_policy),
    ...approvalGateIssues(definition.steps),
  ];
  definition.steps.forEach((step, i) => {
    for (const issue of validateStepConfig(step.handler, step.config, `steps[${i}].config`)) issues.push(issue);
  });
  return issues;
}
