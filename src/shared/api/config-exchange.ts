import { z } from 'zod';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of configuration exchange (`/config-exchange/…`, docs/config-exchange.md): the plan a
 * plan operation produces (also what the CLI renders), the operations and the engine's read routes.
 */

export const CHANGE_ACTIONS = ['create', 'update', 'delete'] as const;
export type ChangeAction = (typeof CHANGE_ACTIONS)[number];

export const fieldDiff = z.object({
  path: z.string().describe('Dotted path inside the item (`value.mtu`); arrays change as a whole'),
  before: z.unknown(),
  after: z.unknown(),
});
export type FieldDiff = z.infer<typeof fieldDiff>;

export const plannedChange = z.object({
  family: z.string(),
  key: z.string().describe("The item's natural key within its family"),
  action: z.enum(CHANGE_ACTIONS),
  diffs: z.array(fieldDiff).describe('update: the fields that change; create: every field from null; delete: every field to null'),
  before: z.record(z.string(), z.unknown()).nullable(),
  after: z.record(z.string(), z.unknown()).nullable(),
  needs_values: z
    .array(z.string())
    .optional()
    .describe(
      'Secrets: the keys this change declares whose values the bundle does not carry; set them through the secrets API after the apply',
    ),
});
export type PlannedChange = z.infer<typeof plannedChange>;

export const planSummary = z.object({
  add: z.number().int(),
  change: z.number().int(),
  destroy: z.number().int(),
  unchanged: z.number().int(),
  unmanaged: z.number().int().describe('Current items the bundle does not name, left alone because the plan does not prune'),
});
export type PlanSummary = z.infer<typeof planSummary>;

export const plan = z.object({
  plan_id: z.string().describe('The plan operation’s correlation id: what an apply names'),
  org: z.string().nullable().describe('Slug of the organization the organization families were planned for'),
  families: z.array(z.string()).describe('The families the plan covers, in apply order'),
  prune: z.boolean(),
  fingerprint: z.string().describe('SHA-256 of the current rows the plan read; an apply runs only while it still matches'),
  changes: z.array(plannedChange).describe('In apply order: creates and updates by family dependency, then deletes in reverse'),
  unmanaged: z.array(z.object({ family: z.string(), key: z.string() })),
  summary: planSummary,
  text: z.string().describe('The plan rendered like `terraform plan`: `+` create, `~` update with field diffs, `-` destroy'),
});
export type Plan = z.infer<typeof plan>;

export const applyResult = z.object({
  plan_id: z.string(),
  applied: z.array(z.object({ family: z.string(), key: z.string(), action: z.enum(CHANGE_ACTIONS) })),
  summary: planSummary,
});
export type ApplyResult = z.infer<typeof applyResult>;

export const exportResult = z.object({
  yaml: z.string().describe('The bundle; the same configuration always gives the same text'),
  families: z.array(z.string()),
  org: z.string().nullable(),
});
export type ExportResult = z.infer<typeof exportResult>;

export const bundleIssue = z.object({
  path: z.string().describe('JSON path in the bundle (`variables[2].value`); empty for the document'),
  line: z.number().int().describe('1-based; 0 when the document has no such place (a missing section)'),
  column: z.number().int(),
  message: z.string(),
});
export type BundleIssue = z.infer<typeof bundleIssue>;

const familyNames = z.array(z.string().min(1).max(64)).max(64);

export const OPERATION_MODES = ['export', 'plan', 'apply'] as const;
export const OPERATION_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

export const createOperationBody = z
  .object({
    mode: z.enum(OPERATION_MODES),
    org: z.string().min(1).max(255).optional().describe('Organization slug (or id) for the organization families'),
    families: familyNames.optional().describe('Only these families (default: every family the bundle or scope holds)'),
    bundle: z.string().max(10_000_000).optional().describe('plan: the bundle YAML'),
    plan_id: z.string().optional().describe('apply: the correlation id of a succeeded plan operation'),
    prune: z.boolean().optional().describe('plan: also destroy current items the bundle does not name (default false)'),
  })
  .strict();
export type CreateOperationBody = z.infer<typeof createOperationBody>;

export const operationAccepted = z.object({ correlation_id: z.string(), status: z.enum(OPERATION_STATUSES) });

export const operationPath = z.object({ correlation_id: pathId });

export const operation = z.object({
  correlation_id: z.string(),
  mode: z.enum(OPERATION_MODES),
  status: z.enum(OPERATION_STATUSES),
  org: z.string().nullable(),
  families: z.array(z.string()).nullable(),
  prune: z.boolean(),
  plan_id: z.string().nullable(),
  progress: z.object({ phase: z.string(), done: z.number().int(), total: z.number().int() }),
  result: z.union([exportResult, plan, applyResult]).nullable(),
  error: z.record(z.string(), z.unknown()).nullable().describe('The problem (RFC 9457 body) the operation failed with'),
  requested_by: z.string().nullable(),
  cancel_requested: z.boolean(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});
export type Operation = z.infer<typeof operation>;

export const resourceFamilies = z.object({
  items: z.array(
    z.object({
      name: z.string(),
      scope: z.enum(['org', 'platform']),
      depends_on: z.array(z.string()),
      order: z.number().int().describe('Position in apply order (creates and updates; deletes run in reverse)'),
      summary: z.string(),
      fields: z.array(z.string()),
    }),
  ),
});

export const projectionQuery = z
  .object({
    org: z.string().min(1).max(255).optional().describe('Organization slug or id: adds the organization families'),
    families: z.string().max(2000).optional().describe('Comma-separated family names (default: every family of the scope)'),
  })
  .strict();

export const projection = z.object({
  org: z.string().nullable(),
  families: z.array(z.string()),
  bundle: z.record(z.string(), z.unknown()).describe('The bundle document an export would write now, as JSON'),
  fingerprint: z.string(),
});

export const bundleJsonSchema = z.record(z.string(), z.unknown()).describe('JSON Schema (draft 2020-12) of a bundle document');
