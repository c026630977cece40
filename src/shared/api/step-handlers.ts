import { z } from 'zod';
import { FIELD_TYPES, HANDLER_KINDS, STRING_FORMATS } from '../flows/step-handlers/types.js';

/** Wire schema of `GET /flows/step-handler-types/{handler_id}/docs`. */

export const handlerDocsPath = z.object({ handler_id: z.string() });

/** One field of a handler's configuration (snake_case, like the rest of the API; absent properties omitted). */
export const fieldDocs = z.object({
  key: z.string(),
  type: z.enum(FIELD_TYPES),
  required: z.boolean(),
  default: z.unknown().optional(),
  default_text: z.string().optional(),
  enum: z.array(z.string()).optional(),
  item_enum: z.array(z.string()).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  clamped: z.boolean().optional(),
  format: z.enum(STRING_FORMATS).optional(),
  key_value: z.enum(['string', 'json']).optional(),
  grouped_keys: z.boolean().optional(),
  secret_values: z.boolean().optional(),
  variants: z.array(z.enum(['integer', 'string', 'string[]'])).optional(),
  entries: z.object({ modes: z.array(z.string()), mode_requires: z.record(z.string(), z.string()).optional() }).optional(),
  narrowing: z.enum(['host_access', 'egress']).optional(),
  meaning: z.string(),
});
export type FieldDocs = z.infer<typeof fieldDocs>;

export const handlerDocs = z.object({
  id: z.string(),
  category: z.string(),
  kinds: z.array(z.enum(HANDLER_KINDS)),
  description: z.string(),
  /** Registered for the platform's own use and hidden from the palette; a flow may still hold it. */
  internal: z.boolean(),
  open_config: z.boolean(),
  reserved_key_prefix: z.string(),
  fields: z.array(fieldDocs),
  rules: z.array(z.object({ id: z.string(), description: z.string() })),
  markdown: z.string(),
});
export type HandlerDocs = z.infer<typeof handlerDocs>;
