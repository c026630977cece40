import { z } from 'zod';
import { pageShape } from './query.js';
import { stamps } from './stamps.js';
import { VARIABLE_NAME, VARIABLE_NAME_RULE, VARIABLE_TYPES } from '../variables/variable-rules.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of the variable routes (`/variables…`) and the worker's `GET /internal/variables`. A
 * value's fit to its type is the service's check (`variableValueProblem`), answered at the path `value`.
 */

/** A malformed id is no variable at all (404), so it is a plain string here. */
export const variablePath = z.object({ variable_id: pathId });

const name = z.string().regex(VARIABLE_NAME, VARIABLE_NAME_RULE);
const type = z.enum(VARIABLE_TYPES);
const description = z.string().max(10_000).nullable();
const value = z
  .unknown()
  .describe('string, number, boolean or JSON (object, array, null) as the type says; a secret_ref holds a secret reference');

export const createVariableBody = z.object({ name, type, value, description: description.optional() }).strict();
export type CreateVariableBody = z.infer<typeof createVariableBody>;

export const updateVariableBody = z
  .object({ name: name.optional(), type: type.optional(), value: value.optional(), description: description.optional() })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'give name, type, value or description' });
export type UpdateVariableBody = z.infer<typeof updateVariableBody>;

const bool = z.enum(['true', 'false']);

export const listVariablesQuery = z
  .object({
    q: z.string().max(255).optional().describe('Name contains (case-insensitive)'),
    type: type.optional(),
    include_deleted: bool.optional().describe("Also the active organization's soft-deleted variables"),
    ...pageShape,
  })
  .strict();

export const variable = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  type,
  value: z.unknown(),
  shared: z.boolean().describe("The shared organization's variable: read here, changed only there"),
  ...stamps,
});
export type Variable = z.infer<typeof variable>;

export const variableList = z.object({
  items: z.array(variable),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type VariableList = z.infer<typeof variableList>;

export const internalVariablesQuery = z.object({ run_id: z.string().describe('The run the calling worker holds') }).strict();

export const internalVariables = z.object({
  run_id: z.string(),
  org_id: z.string(),
  variables: z
    .record(z.string(), z.unknown())
    .describe("Name -> value: the run organization's live variables over the shared organization's; secret_ref ones resolved"),
  secret_names: z.array(z.string()).describe('Variables whose value is a secret: never to be logged or echoed'),
  unresolved: z
    .array(z.object({ name: z.string(), reason: z.string() }))
    .describe('secret_ref variables whose secret could not be read (left out of `variables`)'),
});
export type InternalVariables = z.infer<typeof internalVariables>;

export const internalSecretBackends = z.object({
  items: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      type: z.string(),
      scheme: z.string().describe('The scheme of its bare references (`<scheme>://orgs/<org_slug>/secrets/<path>`)'),
      is_default: z.boolean(),
      available: z.boolean().describe('Whether this build reads its values'),
    }),
  ),
});
export type InternalSecretBackends = z.infer<typeof internalSecretBackends>;
