import { z } from 'zod';
import {
  SECRET_KEY_PATTERN,
  SECRET_MAX_KEYS,
  SECRET_NAME_MAX,
  SECRET_NAME_PATTERN,
  SECRET_PATH_MAX,
  SECRET_VALUE_MAX_BYTES,
} from '../secrets/names.js';
import { pageShape } from './query.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of the secrets routes (`/secrets`) and of the secret backends (`/settings/secrets-backends`,
 * `/settings/secret-backend-types`): the daemon validates and documents with them. No answer here has room
 * for a value: values only ever go in.
 */

export const pageQuery = z.object(pageShape).strict();

// Path parameters stay plain strings: an id that is not a UUID names nothing, and is answered 404 by the service.
export const secretPathParams = z.object({ secret_id: pathId });
export const backendPathParams = z.object({ backend_id: pathId });

const noNul = (v: string) => !v.includes('\u0000');

const secretName = z
  .string()
  .min(1)
  .max(SECRET_NAME_MAX)
  .regex(SECRET_NAME_PATTERN, 'letters, digits and . _ / - , starting with a letter or digit');
const secretPath = z
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

export const listSecretsQuery = z.object({ ...pageShape, backend_id: z.uuid().optional(), name: secretName.optional() }).strict();

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

/** Fields fixed at creation: a PATCH naming them is refused (before this schema, by name) even when unchanged. */
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
/** The bodies as a client sends them (`config` and `is_default` may be left out). */
export type CreateBackendBody = z.input<typeof createBackendBody>;
export type UpdateBackendBody = z.input<typeof updateBackendBody>;

export const backendItemsQuery = z.object({ ...pageShape, prefix: z.string().max(1200).optional() }).strict();

/** A page of `items` with the total and the page asked for. */
const page = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });

export const secret = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  backend: z.object({ id: z.string(), name: z.string(), type: z.string(), scheme: z.string() }),
  path: z.string().describe("Folder of the secret under the organization's prefix."),
  reference: z.string().describe('`<scheme>://orgs/<org_slug>/secrets/<path>`: what flows write to use the secret.'),
  created_at: z.string(),
  updated_at: z.string(),
  created_by: z.string().nullable(),
  updated_by: z.string().nullable(),
});
export type SecretView = z.infer<typeof secret>;

/** A single secret as read, created or changed: with the key names of a live read of its folder. */
export const secretDetail = secret.extend({ keys: z.array(z.string()).describe('Key names of a live read of the folder (never values).') });
export type SecretDetailView = z.infer<typeof secretDetail>;

export const secretList = page(secret);

export const secretProvider = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  scheme: z.string(),
  is_default: z.boolean(),
  reference_prefix: z.string().describe("The reference prefix of the caller's organization in this backend."),
});
export type SecretProviderView = z.infer<typeof secretProvider>;

export const secretProviderList = z.object({ items: z.array(secretProvider) });

export const discoveredSecret = z.object({
  backend: z.object({ id: z.string(), name: z.string(), scheme: z.string() }),
  path: z.string(),
  reference: z.string(),
});
export type DiscoveredSecretView = z.infer<typeof discoveredSecret>;

export const discoveredSecretList = page(discoveredSecret);

export const secretBackendType = z.object({
  type: z.string(),
  name: z.string(),
  description: z.string(),
  available: z
    .boolean()
    .describe('False when this build cannot serve the type: creating a backend of it answers 422 `unsupported_backend_type`.'),
});
export type SecretBackendTypeView = z.infer<typeof secretBackendType>;

export const secretBackendTypeList = z.object({ items: z.array(secretBackendType) });

export const secretBackend = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  scheme: z.string(),
  config: z.record(z.string(), z.unknown()),
  is_default: z.boolean(),
  is_builtin: z.boolean().describe('The seeded built-in backend: cannot be deleted.'),
  secrets_count: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
  created_by: z.string().nullable(),
  updated_by: z.string().nullable(),
});
export type SecretBackendView = z.infer<typeof secretBackend>;

export const secretBackendList = page(secretBackend);

export const secretBackendItem = z.object({
  location: z.string(),
  org_slug: z.string().nullable(),
  path: z.string().nullable(),
});
export type SecretBackendItemView = z.infer<typeof secretBackendItem>;

export const secretBackendItemList = page(secretBackendItem);

export const secretBackendTest = z.object({ ok: z.boolean(), detail: z.string() });
export type SecretBackendTestView = z.infer<typeof secretBackendTest>;
