import { z } from 'zod';
import {
  SECRET_KEY_PATTERN,
  SECRET_MAX_KEYS,
  SECRET_NAME_MAX,
  SECRET_NAME_PATTERN,
  SECRET_PATH_MAX,
  SECRET_VALUE_MAX_BYTES,
} from '../../../shared/secrets/names.js';

export const MAX_PAGE = 500;

const number = (max: number) =>
  z
    .string()
    .regex(/^\d{1,7}$/)
    .transform(Number)
    .pipe(z.number().int().min(0).max(max));
export const pageShape = {
  limit: number(MAX_PAGE).pipe(z.number().min(1)).default(50),
  offset: number(10_000_000).default(0),
};
export const pageQuery = z.object(pageShape).strict();
export const noQuery = z.object({}).strict();

const noNul = (v: string) => !v.includes('\u0000');

export const secretName = z
  .string()
  .min(1)
  .max(SECRET_NAME_MAX)
  .regex(SECRET_NAME_PATTERN, 'letters, digits and . _ / - , starting with a letter or digit');
export const secretPath = z
  .string()
  .min(1)
  .max(SECRET_PATH_MAX)
  .regex(SECRET_NAME_PATTERN, 'letters, digits and . _ / - , starting with a letter or digit');
const description = z.string().max(10_000).refine(noNul, 'must not contain NUL').nullable();
const keyName = z.string().regex(SECRET_KEY_PATTERN, 'a letter or _ then up to 127 letters, digits, _ . -');
// The message never repeats the value: only its limit.
const value = z
  .string()
  .refine((v) => Buffer.byteLength(v, 'utf8') <= SECRET_VALUE_MAX_BYTES, `must be at most ${SECRET_VALUE_MAX_BYTES} bytes (UTF-8)`);
const values = z
  .record(keyName, value)
  .refine((v) => Object.keys(v).length >= 1, 'give at least one key')
  .refine((v) => Object.keys(v).length <= SECRET_MAX_KEYS, `at most ${SECRET_MAX_KEYS} keys`);

export const listSecretsQuery = z.object({ ...pageShape, backend_id: z.uuid().optional() }).strict();

export const createSecretBody = z
  .object({
    name: secretName,
    description: description.optional(),
    backend_id: z.uuid().optional(),
    path: secretPath.optional(),
    values: values.optional(),
  })
  .strict();

export const updateSecretBody = z
  .object({
    description: description.optional(),
    values: values.optional(),
    remove_keys: z.array(keyName).min(1).max(SECRET_MAX_KEYS).optional(),
  })
  .strict()
  .refine(
    (b) => b.description !== undefined || b.values !== undefined || b.remove_keys !== undefined,
    'give description, values or remove_keys',
  );

export const duplicateSecretBody = z
  .object({ name: secretName, path: secretPath.optional(), description: description.optional() })
  .strict();

/** Fields fixed at creation: a PATCH naming them is refused even when unchanged. */
export const IMMUTABLE_SECRET_FIELDS = ['name', 'path', 'backend_id'] as const;

const backendName = z.string().trim().min(1).max(255).refine(noNul, 'must not contain NUL');

export const createBackendBody = z
  .object({
    name: backendName,
    type: z.enum(['builtin', 'vault']),
    scheme: z.string().regex(/^[a-z][a-z0-9+.-]{0,63}$/, 'lower-case letter, then up to 63 of a-z 0-9 + . -'),
    // Connection settings only: a credential belongs in a secret, referenced from here.
    config: z.record(z.string(), z.unknown()).default({}),
    is_default: z.boolean().default(false),
  })
  .strict()
  .refine((b) => b.type !== 'builtin' || Object.keys(b.config).length === 0, {
    message: 'the built-in type takes no configuration',
    path: ['config'],
  });

export const updateBackendBody = z
  .object({ name: backendName.optional(), is_default: z.boolean().optional() })
  .strict()
  .refine((b) => b.name !== undefined || b.is_default !== undefined, 'give name or is_default');

export const backendItemsQuery = z.object({ ...pageShape, prefix: z.string().max(1200).optional() }).strict();

/** JSON Schema of a request body for the OpenAPI document. */
export function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
