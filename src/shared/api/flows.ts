import { z } from 'zod';
import { stamps } from './stamps.js';
import {
  flowDefinitionSchema,
  flowEdgeSchema,
  flowInputSchema,
  flowNetworkPolicySchema,
  flowStepSchema,
  flowTargetRoleSchema,
} from '../flows/definition-schema.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of the flow routes (`/flows…`, `/flow-interface/field-types`): the daemon validates and
 * documents with them; a client's types are inferred from them.
 */

const MAX_PAGE = 500;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Trimmed, 1-255 characters (code points, as the database counts), no control characters. */
const flowName = z
  .string()
  .trim()
  .min(1)
  .refine((v) => [...v].length <= 255, { message: 'must be at most 255 characters' })
  .refine((v) => !CONTROL.test(v), { message: 'must not contain control characters' });

const description = z.string().max(10_000).nullable();

/** Path parameters: a malformed id or version is no flow or version at all (404), so both are plain strings here. */
export const flowPath = z.object({ flow_id: pathId });
export const flowVersionPath = z.object({
  flow_id: pathId,
  version: z.string().describe('A committed version number, from 1; anything else is no version (404).'),
});

export const createFlowBody = z
  .object({ name: flowName, description: description.optional(), definition: flowDefinitionSchema.optional() })
  .strict();
export const replaceFlowBody = z.object({ name: flowName, description: description.optional(), definition: flowDefinitionSchema }).strict();
export const draftBody = z.object({ definition: flowDefinitionSchema }).strict();
export const commitBody = z.object({ message: z.string().trim().max(10_000).nullable().optional() }).strict();
export const duplicateBody = z.object({ name: flowName.optional() }).strict();
export const pinBody = z.object({ pinned: z.boolean() }).strict();
export const manualRunsBody = z.object({ enabled: z.boolean() }).strict();
/** The definition is checked by the handler, so that a malformed one comes back as issues rather than a 422. */
export const validateBody = z.object({ definition: z.unknown().optional() }).strict();

const count = (max: number) =>
  z
    .string()
    .regex(/^\d{1,7}$/)
    .transform(Number)
    .pipe(z.number().int().min(0).max(max));
const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const page = { limit: count(MAX_PAGE).pipe(z.number().min(1)).default(50), offset: count(10_000_000).default(0) };

export const flowListQuery = z
  .object({ q: z.string().max(255).optional(), pinned: bool.optional(), include_deleted: bool.optional(), ...page })
  .strict();
export const versionPageQuery = z.object(page).strict();

/** A committed version (from 1) or `draft`. */
const revisionParam = z.union([
  z.literal('draft'),
  z
    .string()
    .regex(/^[1-9]\d{0,8}$/, 'a version number or "draft"')
    .transform(Number),
]);
const versionNumber = z
  .string()
  .regex(/^[1-9]\d{0,8}$/, 'a version number')
  .transform(Number);

export const compareQuery = z.object({ from: revisionParam.optional(), to: revisionParam.optional() }).strict();
export const interfaceQuery = z.object({ version: revisionParam.optional() }).strict();
export const launchContractQuery = z.object({ version: versionNumber.optional() }).strict();
export const noQuery = z.object({}).strict();

// The definition's members as answers carry them: the request's members, not strict (an answer's schema never is).
const flowInput = z.object(flowInputSchema.shape);
const flowTargetRole = z.object(flowTargetRoleSchema.shape);
const flowNetworkPolicy = z.object(flowNetworkPolicySchema.shape);
const flowEdge = z.object(flowEdgeSchema.shape);

/** A definition as sent back: a draft (saved only in the request's shape) or a committed version. */
export const flowDefinition = z.object({
  steps: z.array(z.object(flowStepSchema.shape)),
  edges: z.array(flowEdge),
  inputs: z.array(flowInput),
  target_roles: z.array(flowTargetRole),
  network_policy: flowNetworkPolicy.optional(),
});

/** One reason a definition cannot be committed: its JSON path from the definition's root, a message, a stable code. */
export const definitionIssue = z.object({ path: z.string(), message: z.string(), code: z.string() });

/** Whether a definition could be committed as it is, and why not. */
export const definitionValidation = z.object({ valid: z.boolean(), issues: z.array(definitionIssue) });

export const flowSummary = z.object({
  id: z.string(),
  org_id: z.string(),
  /** The flow belongs to the shared organization and is seen from another one: readable, not writable. */
  read_only: z.boolean(),
  name: z.string(),
  description: z.string().nullable(),
  latest_version: z.number().int(),
  draft_dirty: z.boolean(),
  is_pinned: z.boolean(),
  manual_runs_enabled: z.boolean(),
  ...stamps,
});
export type FlowSummary = z.infer<typeof flowSummary>;

export const flow = flowSummary.extend({ draft: flowDefinition, validation: definitionValidation });

/** A page of a list: its items, how many there are in all, and the page asked for. */
const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

export const flowList = pageOf(flowSummary);

export const flowVersionSummary = z.object({
  version: z.number().int(),
  message: z.string().nullable(),
  committed_by: z.string().nullable(),
  committed_at: z.string(),
});
export type FlowVersionSummary = z.infer<typeof flowVersionSummary>;

export const flowVersion = flowVersionSummary.extend({ flow_id: z.string(), definition: flowDefinition });

export const flowVersionList = pageOf(flowVersionSummary);

/** A side of a comparison as answered: a version number or `draft`. */
const revision = z.union([z.number().int(), z.literal('draft')]);

const namedChanges = z.object({
  added: z.array(z.string()),
  removed: z.array(z.string()),
  /** `fields`: the members that differ (`type`, `default`, `min_devices`, …). */
  changed: z.array(z.object({ name: z.string(), fields: z.array(z.string()) })),
});
const stepRef = z.object({ id: z.string(), handler: z.string() });

export const flowComparison = z.object({
  from: revision,
  to: revision,
  identical: z.boolean(),
  steps: z.object({
    added: z.array(stepRef),
    removed: z.array(stepRef),
    /** `fields`: `name`, `handler`, `target_role`, `config`; `config_keys`: the configuration keys added, removed or changed. */
    changed: z.array(z.object({ id: z.string(), fields: z.array(z.string()), config_keys: z.array(z.string()) })),
  }),
  edges: z.object({ added: z.array(flowEdge), removed: z.array(flowEdge) }),
  inputs: namedChanges,
  target_roles: namedChanges,
  network_policy: z.object({ changed: z.boolean(), from: flowNetworkPolicy.nullable(), to: flowNetworkPolicy.nullable() }),
});

export const versioningInfo = z.object({
  flow_id: z.string(),
  latest_version: z.number().int(),
  version_count: z.number().int(),
  latest: flowVersionSummary.nullable(),
  draft_dirty: z.boolean(),
  draft_valid: z.boolean(),
  committable: z.boolean(),
  updated_at: z.string(),
  updated_by: z.string().nullable(),
});

/** A JSON Schema (2020-12) of a run's `params`. */
const paramsSchema = z.record(z.string(), z.unknown());

export const flowInterface = z.object({
  flow_id: z.string(),
  version: revision,
  inputs: z.array(flowInput),
  target_roles: z.array(flowTargetRole),
  params_schema: paramsSchema,
});

export const launchContract = z.object({
  flow_id: z.string(),
  name: z.string(),
  /** The committed version described; null when the flow was never committed. */
  version: z.number().int().nullable(),
  launchable: z.boolean(),
  manual_runs_enabled: z.boolean(),
  reasons: z.array(z.enum(['never_committed', 'manual_runs_disabled'])),
  inputs: z.array(flowInput),
  target_roles: z.array(
    z.object({
      name: z.string(),
      description: z.string().nullable(),
      min_devices: z.number().int(),
      max_devices: z.number().int().nullable(),
    }),
  ),
  params_schema: paramsSchema.nullable(),
});

export const fieldTypes = z.object({
  items: z.array(
    z.object({
      type: flowInputSchema.shape.type,
      label: z.string(),
      description: z.string(),
      /** The JSON type a run's value has. */
      value: z.enum(['string', 'integer', 'number', 'boolean', 'array', 'any']),
      /** Optional members of an input that apply to this type. */
      members: z.array(z.enum(['options', 'min', 'max', 'pattern'])),
    }),
  ),
});
