import { z } from 'zod';
import { stamps } from './stamps.js';
import { flag, name, nullableString, ownedRow, page, pageOf, searchText, tags, text } from './inventory.js';
import { pathId, uuid } from './id-schemas.js';

/** Wire schemas of the site routes (`/sites`): the daemon validates and documents with them. */

export const sitePath = z.object({ site_id: pathId });

const description = text(10_000).nullable();
const address = text(1000).nullable();
const parentId = uuid.nullable();

export const createSiteBody = z
  .object({ name, description: description.optional(), parent_id: parentId.optional(), address: address.optional(), tags: tags.optional() })
  .strict();

export const patchSiteBody = createSiteBody
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'give at least one of name, description, parent_id, address, tags');

export const siteListQuery = z
  .object({
    q: searchText.optional(),
    // `parent_id=null` lists the top-level sites.
    parent_id: z.union([z.literal('null').transform(() => null), uuid]).optional(),
    include_deleted: flag.optional(),
    ...page,
  })
  .strict();

export const site = z.object({
  ...ownedRow,
  description: nullableString,
  parent_id: nullableString,
  address: nullableString,
  tags: z.array(z.string()),
  provider_id: nullableString,
  external_id: nullableString,
  ...stamps,
});
export type Site = z.infer<typeof site>;

export type SiteTreeNode = Site & { children: SiteTreeNode[] };

/**
 * A site with its children, to any depth. The recursion is a `$ref` into the answer's `$defs`, which the
 * tree's `$id` makes resolve inside the answer's own schema (not against the OpenAPI document's root).
 */
export const siteTreeNode: z.ZodType<SiteTreeNode> = z
  .object({
    ...site.shape,
    get children() {
      return z.array(siteTreeNode);
    },
  })
  .meta({ id: 'SiteTreeNode' });

export const siteTree = z.object({ items: z.array(siteTreeNode) }).meta({ $id: 'urn:svc:schema:site-tree' });

export const sitePage = pageOf(site);
