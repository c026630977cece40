import { z } from 'zod';
import { pageShape } from './query.js';

/**
 * Wire schemas of the editor's variable contexts (`/variable-contexts…`, `variable_context:view`): which
 * names a step configuration template may use, and the check of a template text. Names and types only,
 * never values.
 */

const revision = z
  .union([z.number().int().min(1), z.literal('draft')])
  .describe('A committed version, or "draft" (the default: what the editor edits)');

const namespace = z.object({
  name: z.string(),
  description: z.string(),
  open: z.boolean().describe('Its names are known only to the run'),
});
const contextVariable = z.object({
  name: z.string(),
  type: z.string(),
  value_type: z.string(),
  shared: z.boolean(),
  description: z.string().nullable(),
});
const contextName = z.object({ path: z.string(), namespace: z.string(), type: z.string(), description: z.string() });

export const variableContextsQuery = z
  .object({ q: z.string().max(255).optional().describe('Variable name contains'), ...pageShape })
  .strict();

export const variableContexts = z.object({
  namespaces: z.array(namespace),
  variables: z.array(contextVariable).describe("The organization's and the shared organization's live variables (a page), no values"),
  total: z.number().int().describe('How many variables match'),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type VariableContexts = z.infer<typeof variableContexts>;

const flowPoint = {
  flow_id: z.guid().optional().describe('The flow whose inputs, targets and steps count; without one, only variables and run fields'),
  step_id: z.string().max(64).optional().describe('The step whose templates these are: steps that run before it give outputs'),
  version: revision.optional(),
};

export const variableContextBody = z
  .object(flowPoint)
  .strict()
  .refine((b) => b.step_id === undefined || b.flow_id !== undefined, { message: 'step_id needs flow_id', path: ['step_id'] });

export const variableContext = z.object({
  flow_id: z.string().nullable(),
  version: z.union([z.number().int(), z.literal('draft')]).nullable(),
  step_id: z.string().nullable(),
  names: z.array(contextName),
});
export type VariableContext = z.infer<typeof variableContext>;

export const validateTemplateBody = z
  .object({ template: z.string().max(100_000).describe('A text with `{{ … }}` templates'), ...flowPoint })
  .strict()
  .refine((b) => b.step_id === undefined || b.flow_id !== undefined, { message: 'step_id needs flow_id', path: ['step_id'] });

export const templateValidation = z.object({
  valid: z.boolean(),
  references: z.array(z.object({ expression: z.string(), offset: z.number().int(), namespace: z.string(), type: z.string() })),
  issues: z.array(
    z.object({
      expression: z.string(),
      offset: z.number().int().describe('Where its `{{` starts in the text (UTF-16 units)'),
      code: z.string().describe('`not_a_path`, `unknown_namespace`, `unknown_name`, `step_not_upstream`'),
      message: z.string(),
    }),
  ),
});
export type TemplateValidation = z.infer<typeof templateValidation>;
