import { z } from 'zod';
import { ORG_ROLES } from '../tenancy/org-roles.js';
import { pathId } from './id-schemas.js';

/** Wire schemas of the IdP mapping routes (`/orgs/{org_ref}/idp-mappings`): the daemon validates and documents with them, the CLI's types are inferred from them. */

export const MAX_VALUE_CHARS = 1024;
export const MAX_PREVIEW_VALUES = 1000;

/**
 * A claim value exactly as the provider emits it: no trimming, no case folding. Length counts
 * characters as the database does (code points), and NUL, which PostgreSQL text cannot hold, is refused.
 */
const claimValue = z
  .string()
  .min(1)
  .refine((v) => [...v].length <= MAX_VALUE_CHARS, { message: `must be at most ${MAX_VALUE_CHARS} characters` })
  .refine((v) => !v.includes('\u0000'), { message: 'must not contain NUL' });

const role = z.enum(ORG_ROLES);

export const idpMappingPath = z.object({ org_ref: pathId, mapping_id: pathId });

export const createIdpMappingBody = z
  .object({
    claim: z.string().min(1).max(255),
    value: claimValue,
    role,
    is_active: z.boolean().optional(),
  })
  .strict();

/** `claim` and `value` are the mapping's identity: a PATCH naming them is refused (before this schema, by name). */
export const IDP_MAPPING_IMMUTABLE = ['claim', 'value'] as const;

export const updateIdpMappingBody = z
  .object({ role: role.optional(), is_active: z.boolean().optional() })
  .strict()
  .refine((b) => b.role !== undefined || b.is_active !== undefined, { message: 'give role or is_active' });

/** `?active=true|false` lists; `?preview_user=<username>&groups=<value>&groups=…` previews a login instead (`active` then refused). */
export const idpMappingsQuery = z
  .object({
    active: z.enum(['true', 'false']).optional(),
    preview_user: z.string().min(1).max(255).optional(),
    // Repeated: `?groups=/Net&groups=Ops`; absent is a login carrying no value.
    groups: z
      .union([claimValue, z.array(claimValue)])
      .transform((v) => [v].flat())
      .pipe(z.array(z.string()).max(MAX_PREVIEW_VALUES))
      .optional(),
  })
  .strict()
  .superRefine((query, ctx) => {
    const stray = query.preview_user === undefined ? (query.groups ? 'groups' : undefined) : query.active ? 'active' : undefined;
    if (stray) ctx.addIssue({ code: 'unrecognized_keys', keys: [stray], input: query, message: `Unrecognized key: "${stray}"` });
  });

export const idpMapping = z.object({
  id: z.string(),
  org_id: z.string(),
  claim: z.string(),
  value: z.string(),
  role: z.string(),
  is_active: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type IdpMapping = z.infer<typeof idpMapping>;

export const idpMappingList = z.object({ items: z.array(idpMapping) });

const orgRef = z.object({ id: z.string(), slug: z.string() });

export const syncPreviewChange = z.object({
  kind: z.enum(['add', 'upgrade', 'downgrade', 'remove', 'untouched']),
  org: orgRef,
  role: z.string(),
  from: z.string().optional(),
  mapping: z.object({ id: z.string(), claim: z.string(), value: z.string(), role: z.string() }).nullable(),
  source: z.enum(['manual', 'idp']).optional(),
  why: z.string().optional(),
});

export const syncPreview = z.object({
  user: z.object({ id: z.string(), username: z.string() }),
  claim: z.string(),
  authoritative: z.boolean(),
  changes: z.array(syncPreviewChange),
  /** Adds, upgrades, downgrades and removals in organizations the caller does not administer (shown only as this count). */
  hidden_changes: z.number().int(),
});
export type SyncPreview = z.infer<typeof syncPreview>;

/** The list or, with `preview_user`, the preview. */
export const idpMappingsAnswer = z.union([idpMappingList, syncPreview]);
