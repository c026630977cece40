import { duplicateBody, noQuery } from '../../../shared/api/inventory.js';
import { createSiteBody, patchSiteBody, site, siteListQuery, sitePage, sitePath, siteTree } from '../../../shared/api/sites.js';
import { answerTagged, ifMatchOf } from '../../http/entity-tag.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { bulkRoutes } from './bulk-routes.js';
import { actorOf, refuseSyncOnly } from './request.js';
import type { SitesService } from './sites-service.js';

const siteAnswer = { description: 'The site', schema: site };
const taggedSite = { description: "The site; `ETag` its version, for a PATCH's `If-Match`", schema: site };
const nameTaken = { description: 'A live site already has the name (`conflict`)' };

/** Sites (`site:view`, `site:manage`, `site:purge`). A malformed `site_id` answers 404, as an unknown one does. */
export function siteRoutes(sites: SitesService): DomainRoutes {
  return {
    'GET /sites': route({
      summary:
        'Sites of the organization and of the shared organization: `q` (name, description, address), `parent_id` (a site id, or `null` for top-level sites), `include_deleted` (own soft-deleted sites too), `limit` (50, ≤500), `offset`.',
      query: siteListQuery,
      responses: { 200: { description: '`{items, total, limit, offset}`, by name', schema: sitePage } },
      async handle(ctx, { query }) {
        ctx.body = await sites.list(actorOf(ctx), {
          q: query.q,
          parentId: query.parent_id,
          includeDeleted: query.include_deleted ?? false,
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'GET /sites/tree': route({
      summary: 'Every live site (own and shared) nested by `parent_id`: each node is a site with `children`.',
      query: noQuery,
      responses: { 200: { description: '`{items: [site & {children}]}`, by name at each level', schema: siteTree } },
      async handle(ctx) {
        ctx.body = await sites.tree(actorOf(ctx));
      },
    }),
    'GET /sites/{site_id}': route({
      summary: 'One live site of the organization or of the shared organization.',
      params: sitePath,
      query: noQuery,
      responses: { 200: taggedSite },
      async handle(ctx, { params }) {
        answerTagged(ctx, await sites.get(actorOf(ctx), params.site_id));
      },
    }),
    'POST /sites': route({
      summary: 'Create a site `{name, description?, parent_id?, address?, tags?}`; the parent must be a live site of the organization.',
      preValidation: refuseSyncOnly,
      body: createSiteBody,
      responses: { 201: siteAnswer, 409: nameTaken },
      async handle(ctx, { body }) {
        ctx.status = 201;
        ctx.body = await sites.create(actorOf(ctx), body);
      },
    }),
    'PATCH /sites/{site_id}': route({
      summary:
        'Change some of `name`, `description`, `parent_id` (no cycles), `address`, `tags`. A provider-sourced site answers 409 `provider_managed`. With `If-Match` (the `ETag` of a GET), only the version read is changed: another is 412 `precondition_failed`.',
      params: sitePath,
      preValidation: refuseSyncOnly,
      body: patchSiteBody,
      responses: {
        200: taggedSite,
        409: { description: 'A live site already has the name (`conflict`), or the site is provider-sourced (`provider_managed`)' },
        412: {
          description:
            '`If-Match` names a version that is no longer current (`precondition_failed`, `etag` the current one); nothing changed',
        },
      },
      async handle(ctx, { params, body }) {
        answerTagged(ctx, await sites.update(actorOf(ctx), params.site_id, body, ifMatchOf(ctx)));
      },
    }),
    'POST /sites/{site_id}/duplicate': route({
      summary: 'Copy a site (own or shared) into the organization under a new `name`.',
      params: sitePath,
      body: duplicateBody,
      responses: { 201: siteAnswer, 409: nameTaken },
      async handle(ctx, { params, body }) {
        ctx.status = 201;
        ctx.body = await sites.duplicate(actorOf(ctx), params.site_id, body.name);
      },
    }),
    'DELETE /sites/{site_id}': route({
      summary: 'Soft-delete a site; refused (409 `site_in_use`) while it has live child sites or devices.',
      params: sitePath,
      responses: { 204: { description: 'Deleted' }, 409: { description: 'The site has live child sites or devices (`site_in_use`)' } },
      async handle(ctx, { params }) {
        await sites.remove(actorOf(ctx), params.site_id);
        ctx.status = 204;
      },
    }),
    'POST /sites/{site_id}/restore': route({
      summary: 'Restore a soft-deleted site (a live one is answered unchanged); a parent no longer live is let go.',
      params: sitePath,
      noBody: true,
      responses: { 200: siteAnswer, 409: nameTaken },
      async handle(ctx, { params }) {
        ctx.body = await sites.restore(actorOf(ctx), params.site_id);
      },
    }),
    'DELETE /sites/{site_id}/permanent': route({
      summary: 'Delete a site for good (live or soft-deleted); its child sites and devices are detached.',
      params: sitePath,
      responses: { 204: { description: 'Purged' } },
      async handle(ctx, { params }) {
        await sites.purge(actorOf(ctx), params.site_id);
        ctx.status = 204;
      },
    }),
    ...bulkRoutes('sites', sites, '`ok`, `unchanged`, `not_found`, `shared_read_only`, `conflict`, `in_use`'),
  };
}
