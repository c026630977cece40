import { z } from 'zod';
import { isUuid } from '../ids.js';
import { DEFAULT_ORG_ROLE, ORG_ROLES } from '../tenancy/org-roles.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of the organization routes (`/orgs`, `/orgs/{org_ref}/members`, `/orgs/{org_ref}/addable-users`):
 * the daemon validates and documents with them, the CLI's types are inferred from them.
 */

export const MAX_PAGE = 500;
export const MAX_ADDABLE = 100;
export const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** A non-negative count in a query string (at most six digits), as a number. */
const count = (max: number) =>
  z
    .string()
    .regex(/^\d{1,6}$/)
    .transform(Number)
    .pipe(z.number().int().min(0).max(max));
const pageShape = {
  limit: count(MAX_PAGE).pipe(z.number().min(1)).default(100),
  offset: count(1_000_000).default(0),
};

export const orgPath = z.object({ org_ref: pathId });
/** `user_id` stays a string: a member route answers 404 for one that is not a UUID, as for an unknown one. */
export const memberPath = z.object({ org_ref: pathId, user_id: pathId });

export const listOrgsQuery = z.object({ ...pageShape, include_inactive: z.enum(['true', 'false']).optional() }).strict();
export const membersQuery = z.object(pageShape).strict();
export const addableUsersQuery = z
  .object({ q: z.string().max(255).optional(), limit: count(MAX_ADDABLE).pipe(z.number().min(1)).default(20) })
  .strict();

const name = z.string().trim().min(1).max(255);
const description = z.string().max(10_000).nullable();
// A JSON object (not an array, not null), stored as `settings_json`.
const settings = z.record(z.string(), z.unknown());

export const createOrgBody = z
  .object({
    slug: z
      .string()
      .min(2)
      .max(100)
      .regex(SLUG, 'lower-case letters and digits in groups joined by single hyphens')
      .refine((slug) => !isUuid(slug), 'must not be a UUID (an org_ref is an id or a slug)'),
    name,
    description: description.optional(),
    settings: settings.optional(),
  })
  .strict();

/** `slug` is immutable: a PATCH naming it is refused (before this schema, by name). */
export const ORG_IMMUTABLE = ['slug'] as const;

export const updateOrgBody = z
  .object({
    name: name.optional(),
    description: description.optional(),
    is_active: z.boolean().optional(),
    is_shared: z.boolean().optional(),
    settings: settings.optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'give at least one of name, description, is_active, is_shared, settings');

const role = z.enum(ORG_ROLES);

export const addMemberBody = z
  .object({ user_id: z.uuid().optional(), username: z.string().min(1).max(255).optional(), role: role.default(DEFAULT_ORG_ROLE) })
  .strict()
  .refine((body) => (body.user_id === undefined) !== (body.username === undefined), {
    message: 'give user_id or username (one of them)',
    path: ['user_id'],
  });

export const changeMemberBody = z.object({ role }).strict();

export const orgView = z.object({
  id: z.string(),
  slug: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  is_active: z.boolean(),
  is_default: z.boolean(),
  is_shared: z.boolean(),
  settings: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type OrgView = z.infer<typeof orgView>;

/** How the caller comes to see an organization in the list. */
export const orgAccess = z.enum(['member', 'shared', 'platform_admin']);
export type OrgAccess = z.infer<typeof orgAccess>;

const membershipSource = z.enum(['manual', 'idp']);

export const orgListItem = orgView.extend({
  /** The caller's role in it; null where it sees the organization without being a member. */
  role: z.string().nullable(),
  source: membershipSource.nullable(),
  access: orgAccess,
});
export type OrgListItem = z.infer<typeof orgListItem>;

export const memberView = z.object({
  user_id: z.string(),
  username: z.string(),
  email: z.string().nullable(),
  role: z.string(),
  source: membershipSource,
  created_at: z.string(),
  updated_at: z.string(),
});
export type MemberView = z.infer<typeof memberView>;

export const addableUser = z.object({
  id: z.string(),
  username: z.string(),
  email: z.string().nullable(),
  display_name: z.string().nullable(),
});
export type AddableUser = z.infer<typeof addableUser>;

/** A page of an offset-paginated list. */
const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
export type Page<T> = Omit<z.infer<ReturnType<typeof pageOf>>, 'items'> & { items: T[] };

export const orgList = pageOf(orgListItem);
export const memberList = pageOf(memberView);
export const addableUsers = z.object({ items: z.array(addableUser) });
