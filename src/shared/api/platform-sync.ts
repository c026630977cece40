import { z } from 'zod';
import { httpBaseUrl } from './http-url.js';
import { pageShape } from './query.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of platform sync's profiles (`/platform-sync/profiles`): where a profile's configuration
 * comes from, which scope it lands in, which families it keeps in step. The daemon validates and documents
 * with them; the CLI infers its types from them. Plans, runs and destructive authorizations are in
 * platform-sync-runs.ts. docs/platform-sync.md.
 */

/** Largest inline bundle a profile holds, in characters (a bigger bundle belongs in a file repository). */
export const INLINE_BUNDLE_MAX = 512 * 1024;

const slug = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'an organization slug');

/** A family's name as the configuration exchange engine lists it (`GET /config-exchange/resource-families`). */
const familyName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z][a-z0-9_]*$/, 'a resource family name');

const tokenRef = z
  .string()
  .min(1)
  .max(1024)
  .describe("The other installation's API token as a secret reference (`{{ secret('<name>') }}` or a location), never a value");

export const profileSource = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('bundle'), bundle: z.string().min(1).max(INLINE_BUNDLE_MAX).describe('The bundle YAML itself') }).strict(),
  z.object({ kind: z.literal('file'), file_id: z.uuid().describe('A file of the file repositories holding the bundle YAML') }).strict(),
  z
    .object({
      kind: z.literal('installation'),
      base_url: httpBaseUrl,
      token_ref: tokenRef,
      org: slug.optional().describe("The other installation's organization to export (unset: the platform scope)"),
    })
    .strict(),
]);
export type ProfileSource = z.infer<typeof profileSource>;

export const profileTarget = z.discriminatedUnion('scope', [
  z.object({ scope: z.literal('org'), org: slug }).strict(),
  z.object({ scope: z.literal('platform') }).strict(),
]);
export type ProfileTarget = z.infer<typeof profileTarget>;

const profileName = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]*$/, 'letters, digits, spaces, dots, dashes and underscores');

export const profilePath = z.object({ profile_id: pathId });

export const createProfileBody = z
  .object({
    name: profileName,
    description: z.string().max(2000).nullable().optional(),
    source: profileSource,
    target: profileTarget,
    families: z
      .array(familyName)
      .max(100)
      .optional()
      .describe("The families kept in step; unset or empty: every family of the target's scope"),
    prune: z.boolean().optional().describe('Delete what the source no longer has (destructive: needs an authorization); default false'),
  })
  .strict();
export type CreateProfileBody = z.infer<typeof createProfileBody>;

export const updateProfileBody = z
  .object({
    name: profileName.optional(),
    description: z.string().max(2000).nullable().optional(),
    source: profileSource.optional(),
    target: profileTarget.optional(),
    families: z.array(familyName).max(100).optional(),
    prune: z.boolean().optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'give at least one field' });
export type UpdateProfileBody = z.infer<typeof updateProfileBody>;

export const listProfilesQuery = z
  .object({
    q: z.string().max(100).optional().describe('Name contains'),
    source_kind: z.enum(['bundle', 'file', 'installation']).optional(),
    target_org: slug.optional().describe('Profiles landing in this organization'),
    ...pageShape,
  })
  .strict();

/** A source as answers show it: an inline bundle with its digest (a bundle holds no secret value), the token only as its reference. */
const sourceView = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('bundle'), bundle: z.string(), bundle_sha256: z.string() }),
  z.object({ kind: z.literal('file'), file_id: z.string() }),
  z.object({ kind: z.literal('installation'), base_url: z.string(), token_ref: z.string(), org: z.string().nullable() }),
]);

export const syncProfile = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  source: sourceView,
  target: z.discriminatedUnion('scope', [
    z.object({ scope: z.literal('org'), org: z.string() }),
    z.object({ scope: z.literal('platform') }),
  ]),
  families: z.array(z.string()),
  prune: z.boolean(),
  /** Grows by one with every change of the profile; a plan made at an older revision is stale. */
  revision: z.number().int(),
  last_applied_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  created_by: z.string().nullable(),
  updated_by: z.string().nullable(),
});
export type SyncProfile = z.infer<typeof syncProfile>;

export const syncProfileList = z.object({
  items: z.array(syncProfile),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type SyncProfileList = z.infer<typeof syncProfileList>;
