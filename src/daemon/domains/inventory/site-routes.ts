import { z } from 'zod';
import type { AppContext, DomainRoutes } from '../../http/types.js';
import { validate } from '../../http/validate.js';
import { bulkBody, flag, jsonSchema, name, noQuery, page, refuseSyncOnly, searchText, tags, text, uuid } from './fields.js';
import { actorOf, bodyOf } from './request.js';
import type { SitesService } from './sites-service.js';

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

export const duplicateBody = z.object({ name }).strict();

const listQuery = z
  .object({
    q: searchText.optional(),
    // `parent_id=null` lists the top-level sites.
    parent_id: z.union([z.literal('null').transform(() => null), uuid]).optional(),
    include_deleted: flag.optional(),
    ...page,
  })
  .strict();

const siteResponse = {
  description:
    'The site: `{id, org_id, shared, name, description, parent_id, address, tags, provider_id, external_id, created_*, updated_*, deleted_*}`',
};
const bulkResponse = {
  description: '`{results: [{id, status}]}`, one per distinct id: `ok`, `unchanged`, `not_found`, `shared_read_only`, `conflict`, `in_use`',
};

function siteId(ctx: AppContext): string {
  return ctx.state.params.site_id!;
}

/** Sites (`site:view`, `site:manage`, `site:purge`). */
export function siteRoutes(sites: SitesService): DomainRoutes {
  return {
    'GET /sites': {
      docs: {
        summary:
          'Sites of the organization and of the shared organization: `q` (name, description, address), `parent_id` (a site id, or `null` for top-level sites), `include_deleted` (own soft-deleted sites too), `limit` (50, ≤500), `offset`.',
        responses: { 200: { description: '`{items, total, limit, offset}`, by name' } },
      },
      async handle(ctx) {
        const query = validate(listQuery, ctx.query);
        ctx.body = await sites.list(actorOf(ctx), {
          q: query.q,
          parentId: query.parent_id,
          includeDeleted: query.include_deleted ?? false,
          limit: query.limit,
          offset: query.offset,
        });
      },
    },
    'GET /sites/tree': {
      docs: {
        summary: 'Every live site (own and shared) nested by `parent_id`: each node is a site with `children`.',
        responses: { 200: { description: '`{items: [site & {children}]}`, by name at each level' } },
      },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await sites.tree(actorOf(ctx));
      },
    },
    'GET /sites/{site_id}': {
      docs: { summary: 'One live site of the organization or of the shared organization.', responses: { 200: siteResponse } },
      async handle(ctx) {
        validate(noQuery, ctx.query);
        ctx.body = await sites.get(actorOf(ctx), siteId(ctx));
      },
    },
    'POST /sites': {
      docs: {
        summary: 'Create a site `{name, description?, parent_id?, address?, tags?}`; the parent must be a live site of the organization.',
        requestSchema: jsonSchema(createSiteBody),
        responses: { 201: siteResponse, 409: { description: 'A live site already has the name (`conflict`)' } },
      },
      async handle(ctx) {
        refuseSyncOnly(bodyOf(ctx));
        const body = validate(createSiteBody, bodyOf(ctx));
        ctx.status = 201;
        ctx.body = await sites.create(actorOf(ctx), body);
      },
    },
    'PATCH /sites/{site_id}': {
      docs: {
        summary:
          'Change some of `name`, `description`, `parent_id` (no cycles), `address`, `tags`. A provider-sourced site answers 409 `provider_managed`.',
        requestSchema: jsonSchema(patchSiteBody),
        responses: { 200: siteResponse },
      },
      async handle(ctx) {
        refuseSyncOnly(bodyOf(ctx));
        const body = validate(patchSiteBody, bodyOf(ctx));
        ctx.body = await sites.update(actorOf(ctx), siteId(ctx), body);
      },
    },
    'POST /sites/{site_id}/duplicate': {
      docs: {
        summary: 'Copy a site (own or shared) into the organization under a new `name`.',
        requestSchema: jsonSchema(duplicateBody),
        responses: { 201: siteResponse },
      },
      async handle(ctx) {
        const body = validate(duplicateBody, bodyOf(ctx));
        ctx.status = 201;
        ctx.body = await sites.duplicate(actorOf(ctx), siteId(ctx), body.name);
      },
    },
    'DELETE /sites/{site_id}': {
      docs: {
        summary: 'Soft-delete a site; refused (409 `site_in_use`) while it has live child sites or devices.',
        responses: { 204: { description: 'Deleted' } },
      },
      async handle(ctx) {
        await sites.remove(actorOf(ctx), siteId(ctx));
        ctx.status = 204;
      },
    },
    'POST /sites/{site_id}/restore': {
      docs: {
        summary: 'Restore a soft-deleted site (a live one is answered unchanged); a parent no longer live is let go.',
        responses: { 200: siteResponse },
      },
      async handle(ctx) {
        ctx.body = await sites.restore(actorOf(ctx), siteId(ctx));
      },
    },
    'DELETE /sites/{site_id}/permanent': {
      docs: {
        summary: 'Delete a site for good (live or soft-deleted); its child sites and devices are detached.',
        responses: { 204: { description: 'Purged' } },
      },
      async handle(ctx) {
        await sites.purge(actorOf(ctx), siteId(ctx));
        ctx.status = 204;
      },
    },
    'POST /sites/bulk/delete': {
      docs: {
        summary: 'Soft-delete up to 1000 sites `{ids}` in one transaction.',
        requestSchema: jsonSchema(bulkBody),
        responses: { 200: bulkResponse },
      },
      async handle(ctx) {
        ctx.body = await sites.bulkDelete(actorOf(ctx), validate(bulkBody, bodyOf(ctx)).ids);
      },
    },
    'POST /sites/bulk/restore': {
      docs: {
        summary: 'Restore up to 1000 sites `{ids}` in one transaction.',
        requestSchema: jsonSchema(bulkBody),
        responses: { 200: bulkResponse },
      },
      async handle(ctx) {
        ctx.body = await sites.bulkRestore(actorOf(ctx), validate(bulkBody, bodyOf(ctx)).ids);
      },
    },
    'POST /sites/bulk/permanent': {
      docs: {
        summary: 'Delete up to 1000 sites `{ids}` for good in one transaction.',
        requestSchema: jsonSchema(bulkBody),
        responses: { 200: bulkResponse },
      },
      async handle(ctx) {
        ctx.body = await sites.bulkPurge(actorOf(ctx), validate(bulkBody, bodyOf(ctx)).ids);
      },
    },
  };
}
