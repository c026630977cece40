import {
  createDestinationBody,
  destination,
  destinationList,
  destinationPath,
  destinationTypes,
  duplicateDestinationBody,
  flowDefaults,
  listDestinationsQuery,
  testAnswer,
  testDestinationBody,
  updateDestinationBody,
} from '../../../shared/api/notifications.js';
import { noQuery } from '../../../shared/api/query.js';
import { activeOrg } from '../../http/active-org.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { DESTINATION_TYPES } from './destination-types.js';
import type { DestinationsService } from './destinations-service.js';

const DESTINATION = { description: 'The destination (credentials as secret references)', schema: destination };
const NOT_FOUND = { description: 'No such destination in the active organization (`resource_not_found`)' };
const BAD_CONFIG = {
  description:
    "`notification_kind_unknown` (`kinds`), `validation_failed` (`config.<field>`), `notification_secret_reference_refused` (`field`, `reason`: another organization's secret among them)",
};
const NAME_TAKEN = { description: 'A live destination of the organization has the name (`conflict`)' };
const BACKEND_DOWN = { description: 'A secret backend failed (`secret_backend_unavailable`)' };
const TEST_ANSWER = { description: 'What the receiver answered: `delivered`, `outcome`, `status_code`, `reason`', schema: testAnswer };

/** Destinations of the active organization (`notification_destination:view|manage|test|purge`); docs/notifications.md. */
export function destinationRoutes(service: DestinationsService): DomainRoutes {
  return {
    'GET /notifications/destination-types': route({
      summary: 'The destination kinds, their config fields (which are secret references), and the events a flow can send.',
      query: noQuery,
      responses: { 200: { description: '`{items, events}`', schema: destinationTypes } },
      async handle(ctx) {
        ctx.body = DESTINATION_TYPES;
      },
    }),
    'GET /notifications/flow-defaults': route({
      summary:
        "The organization's flow defaults: each live destination with `default_events`, which every flow sends there unless the flow has a subscription of its own to it.",
      query: noQuery,
      responses: { 200: { description: '`{items: [{destination_id, name, kind, events, enabled}]}`', schema: flowDefaults } },
      async handle(ctx) {
        ctx.body = await service.flowDefaults(activeOrg(ctx));
      },
    }),
    'GET /notifications/destinations': route({
      summary:
        'Destinations of the active organization by name. Filters: `kind`, `enabled`, `q` (name contains), `include_deleted`; `limit`, `offset`.',
      query: listDestinationsQuery,
      responses: { 200: { description: '`items`, `total`, `limit`, `offset`', schema: destinationList } },
      async handle(ctx, { query }) {
        ctx.body = await service.list(activeOrg(ctx), {
          kind: query.kind,
          enabled: query.enabled === undefined ? undefined : query.enabled === 'true',
          q: query.q?.trim() || undefined,
          includeDeleted: query.include_deleted === 'true',
          limit: query.limit,
          offset: query.offset,
        });
      },
    }),
    'POST /notifications/destinations': route({
      summary:
        "Create a destination: `{name, kind, config, description?, enabled?, default_events?}`. The config is checked by its kind's schema and each secret reference resolved in the organization before anything is stored.",
      body: createDestinationBody,
      responses: { 201: DESTINATION, 409: NAME_TAKEN, 422: BAD_CONFIG, 503: BACKEND_DOWN },
      async handle(ctx, { body }) {
        const created = await service.create(activeOrg(ctx), body, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/notifications/destinations/${created.id}`);
        ctx.body = created;
      },
    }),
    'GET /notifications/destinations/{destination_id}': route({
      summary: 'One destination; credentials appear only as secret references.',
      params: destinationPath,
      query: noQuery,
      responses: { 200: DESTINATION, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.get(activeOrg(ctx), params.destination_id);
      },
    }),
    'PATCH /notifications/destinations/{destination_id}': route({
      summary: 'Change `name`, `description`, `config` (replaced whole, checked again), `enabled`, `default_events`; the kind stays.',
      params: destinationPath,
      body: updateDestinationBody,
      responses: { 200: DESTINATION, 404: NOT_FOUND, 409: NAME_TAKEN, 422: BAD_CONFIG, 503: BACKEND_DOWN },
      async handle(ctx, { params, body }) {
        ctx.body = await service.update(activeOrg(ctx), params.destination_id, body, ctx.state.audit);
      },
    }),
    'DELETE /notifications/destinations/{destination_id}': route({
      summary: 'Soft-delete a destination (restorable): nothing more is sent to it, and its messages not yet sent are given up.',
      params: destinationPath,
      responses: { 204: { description: 'Deleted' }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        await service.remove(activeOrg(ctx), params.destination_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'POST /notifications/destinations/{destination_id}/duplicate': route({
      summary: 'A copy of a live destination under `name` (`<name> (copy)` unless given), with the same settings and references.',
      params: destinationPath,
      body: duplicateDestinationBody,
      responses: { 201: DESTINATION, 404: NOT_FOUND, 409: NAME_TAKEN },
      async handle(ctx, { params, body }) {
        const created = await service.duplicate(activeOrg(ctx), params.destination_id, body.name, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/notifications/destinations/${created.id}`);
        ctx.body = created;
      },
    }),
    'POST /notifications/destinations/{destination_id}/restore': route({
      summary: 'Restore a soft-deleted destination (409 when a live one has taken its name meanwhile).',
      params: destinationPath,
      noBody: true,
      responses: { 200: DESTINATION, 404: { description: 'No soft-deleted destination of this id in the organization' }, 409: NAME_TAKEN },
      async handle(ctx, { params }) {
        ctx.body = await service.restore(activeOrg(ctx), params.destination_id, ctx.state.audit);
      },
    }),
    'DELETE /notifications/destinations/{destination_id}/permanent': route({
      summary: 'Remove a destination for good (live or soft-deleted), with its subscriptions, messages and their attempts.',
      params: destinationPath,
      responses: { 204: { description: 'Removed' }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        await service.purge(activeOrg(ctx), params.destination_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
    'POST /notifications/destinations/{destination_id}/test': route({
      summary:
        'Send a real test message (`{title?, message?}`) to a live destination now, outside the outbox, and answer what its receiver said (200 whatever it said).',
      params: destinationPath,
      body: testDestinationBody,
      responses: { 200: TEST_ANSWER, 404: NOT_FOUND },
      async handle(ctx, { params, body }) {
        ctx.body = await service.test(activeOrg(ctx), params.destination_id, body, ctx.state.audit);
      },
    }),
    'POST /notifications/destinations/test-config': route({
      summary:
        'Send a real test message to a destination described as a create would describe it, nothing stored, and answer what its receiver said.',
      body: createDestinationBody,
      responses: { 200: TEST_ANSWER, 422: BAD_CONFIG, 503: BACKEND_DOWN },
      async handle(ctx, { body }) {
        ctx.body = await service.testConfig(activeOrg(ctx), body, ctx.state.audit);
      },
    }),
  };
}
