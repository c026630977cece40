import { z } from 'zod';
import { flowDefinitionSchema } from '../../../shared/flows/definition-schema.js';

export const MAX_PAGE = 500;
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Trimmed, 1-255 characters (code points, as the database counts), no control characters. */
export const flowName = z
  .string()
  .trim()
  .min(1)
  .refine((v) => [...v].length <= 255, { message: 'must be at most 255 characters' })
  .refine((v) => !CONTROL.test(v), { message: 'must not contain control characters' });

const description = z.string().max(10_000).nullable();

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

export const listQuery = z
  .object({ q: z.string().max(255).optional(), pinned: bool.optional(), include_deleted: bool.optional(), ...page })
  .strict();
export const pageQuery = z.object(page).strict();

/** A committed version number (from 1) or `draft`. */
const revision = z.union([
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

export const compareQuery = z.object({ from: revision.optional(), to: revision.optional() }).strict();
export const interfaceQuery = z.object({ version: revision.optional() }).strict();
export const launchContractQuery = z.object({ version: versionNumber.optional() }).strict();
export const noQuery = z.object({}).strict();

/** A `{version}` path segment; anything else is no version at all (404, like a malformed id). */
export function parseVersion(segment: string | undefined): number | undefined {
  return segment !== undefined && /^[1-9]\d{0,8}$/.test(segment) ? Number(segment) : undefined;
}

export const schema = (s: z.ZodType) => z.toJSONSchema(s, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
