import { z } from 'zod';

/**
 * Wire schemas of the flow interface's launch-form routes (`/flows/{flow_id}/interface/…`,
 * `/flow-interface/option-sources`): option sources, launch validation, and the preview of how inputs
 * resolve into step configurations.
 */

/** `version`: a committed version number, or `draft`; the newest committed version unless given. */
const revision = z
  .union([z.number().int().min(1), z.literal('draft')])
  .describe('A committed version, or "draft"; default the newest committed');

export const OPTION_SOURCE_KIND = /^[a-z][a-z0-9_]{0,63}$/;

export const optionSourceRef = z
  .object({
    kind: z.string().regex(OPTION_SOURCE_KIND).describe('An option source of `GET /flow-interface/option-sources`'),
    filter: z.record(z.string(), z.string().max(255)).optional().describe("The source's filters, as its entry names them"),
  })
  .strict();

export const interfaceOptionsBody = z
  .object({
    input: z.string().max(64).optional().describe('The input whose options are asked for'),
    target_role: z.string().max(64).optional().describe('Or the target role whose devices are asked for (source `devices` by default)'),
    source: optionSourceRef.optional().describe("`static` (the input's own `options`) unless given"),
    q: z.string().max(255).optional().describe('Value or label contains (case-insensitive)'),
    limit: z.number().int().min(1).max(500).default(50),
    offset: z.number().int().min(0).max(10_000_000).default(0),
    version: revision.optional(),
  })
  .strict()
  .refine((b) => (b.input === undefined) !== (b.target_role === undefined), { message: 'give one of input or target_role' });
export type InterfaceOptionsBody = z.infer<typeof interfaceOptionsBody>;

export const optionItem = z.object({ value: z.string(), label: z.string(), description: z.string().nullable() });
export type OptionItem = z.infer<typeof optionItem>;

export const interfaceOptions = z.object({
  flow_id: z.string(),
  version: z.union([z.number().int(), z.literal('draft')]),
  source: z.string(),
  items: z.array(optionItem),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type InterfaceOptions = z.infer<typeof interfaceOptions>;

export const optionSource = z.object({
  kind: z.string(),
  label: z.string(),
  description: z.string(),
  available: z.boolean().describe('False for a source this build does not resolve yet (asking for it: 422 `option_source_unavailable`)'),
  value: z.string().describe("What an item's `value` is (an id, a name)"),
  filters: z.array(z.object({ name: z.string(), description: z.string() })),
  fits: z.array(z.string()).describe("Input types it may feed (`target_role`: a target role's devices)"),
});
export const optionSources = z.object({ items: z.array(optionSource) });
export type OptionSources = z.infer<typeof optionSources>;

export const launchInputsBody = z
  .object({
    params: z.unknown().optional().describe('Input name -> value, as `POST /runs` takes them'),
    targets: z.record(z.string(), z.array(z.string())).optional().describe('Target role -> device ids'),
    version: revision.optional(),
  })
  .strict();
export type LaunchInputsBody = z.infer<typeof launchInputsBody>;

const launchIssue = z.object({
  path: z.string().describe('Dotted path into the launch (`params.region`, `targets.routers[1]`)'),
  json_path: z.string().describe('The same as a JSON Path (`$.params.region`)'),
  code: z.string(),
  message: z.string(),
});

export const launchValidation = z.object({
  flow_id: z.string(),
  version: z.union([z.number().int(), z.literal('draft')]),
  valid: z.boolean(),
  issues: z.array(launchIssue),
});
export type LaunchValidation = z.infer<typeof launchValidation>;

export const launchPreview = launchValidation.extend({
  params: z.record(z.string(), z.unknown()).describe('The params a run would get: given values, defaults for the rest'),
  inputs: z.array(
    z.object({
      name: z.string(),
      type: z.string(),
      origin: z.enum(['given', 'default', 'absent']),
      value: z.unknown(),
    }),
  ),
  targets: z.record(z.string(), z.array(z.string())),
  references: z
    .array(
      z.object({
        step_id: z.string(),
        path: z.string().describe("Where in the step's config (`config.commands[0]`)"),
        template: z.string(),
        resolved: z.boolean().describe('False when it also names what only the run knows (step outputs, run vars, variables)'),
        value: z.unknown().describe('The text or value it renders to with these inputs; null when not resolved'),
        pending: z.array(z.string()).describe('The template paths left for the run'),
      }),
    )
    .describe('Every template of a step config or approval message that names inputs, params or targets'),
});
export type LaunchPreview = z.infer<typeof launchPreview>;
