import {
  createSubscriptionBody,
  destinationPath,
  flowPath,
  internalDestination,
  internalDestinationQuery,
  internalSubscriptions,
  internalSubscriptionsQuery,
  subscription,
  subscriptionList,
  subscriptionPath,
  updateSubscriptionBody,
} from '../../../shared/api/notifications.js';
import { noQuery } from '../../../shared/api/query.js';
import { activeOrg } from '../../http/active-org.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { InternalNotifications } from './internal-service.js';
import type { SubscriptionsService } from './subscriptions-service.js';

const SUBSCRIPTION = { description: 'The subscription', schema: subscription };
const NOT_FOUND = { description: 'No such flow (or subscription) in the active organization or the shared one (`resource_not_found`)' };

/** A flow's subscriptions in the active organization (`flow_subscription:view|manage`); docs/notifications.md. */
export function subscriptionRoutes(service: SubscriptionsService): DomainRoutes {
  return {
    'GET /flows/{flow_id}/notifications/subscriptions': route({
      summary: "The flow's subscriptions in the active organization, with their destination's name and kind.",
      params: flowPath,
      query: noQuery,
      responses: { 200: { description: '`{items}`', schema: subscriptionList }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        ctx.body = await service.list(activeOrg(ctx), params.flow_id);
      },
    }),
    'POST /flows/{flow_id}/notifications/subscriptions': route({
      summary:
        "Send the flow's `events` to a destination of the organization: `{destination_id, events, enabled?}`. Replaces the destination's flow defaults for this flow; `enabled: false` mutes it.",
      params: flowPath,
      body: createSubscriptionBody,
      responses: {
        201: SUBSCRIPTION,
        404: { description: 'No such flow or destination (`resource_not_found`)' },
        409: { description: 'The flow already has a subscription to the destination (`conflict`)' },
      },
      async handle(ctx, { params, body }) {
        const created = await service.create(activeOrg(ctx), params.flow_id, body, ctx.state.audit);
        ctx.status = 201;
        ctx.set('Location', `/flows/${params.flow_id}/notifications/subscriptions/${created.id}`);
        ctx.body = created;
      },
    }),
    'PATCH /flows/{flow_id}/notifications/subscriptions/{subscription_id}': route({
      summary: 'Change `events` and/or `enabled`.',
      params: subscriptionPath,
      body: updateSubscriptionBody,
      responses: { 200: SUBSCRIPTION, 404: NOT_FOUND },
      async handle(ctx, { params, body }) {
        ctx.body = await service.update(activeOrg(ctx), params.flow_id, params.subscription_id, body, ctx.state.audit);
      },
    }),
    'DELETE /flows/{flow_id}/notifications/subscriptions/{subscription_id}': route({
      summary: "Remove the subscription: the destination's flow defaults apply to the flow again.",
      params: subscriptionPath,
      responses: { 204: { description: 'Removed' }, 404: NOT_FOUND },
      async handle(ctx, { params }) {
        await service.remove(activeOrg(ctx), params.flow_id, params.subscription_id, ctx.state.audit);
        ctx.status = 204;
      },
    }),
  };
}

/** What the `flow.notify` step reads (`internal:resolve`, `X-Internal-Token`). */
export function internalNotificationRoutes(internal: InternalNotifications): DomainRoutes {
  return {
    'GET /internal/flows/{flow_id}/notification-subscriptions': route({
      summary: "What the flow's runs in an organization send, and where: its subscriptions, then the flow defaults it has none for.",
      params: flowPath,
      query: internalSubscriptionsQuery,
      responses: {
        200: { description: '`{flow_id, org_id, items}`', schema: internalSubscriptions },
        404: { description: 'No such flow' },
      },
      async handle(ctx, { params, query }) {
        ctx.body = await internal.effectiveSubscriptions(params.flow_id, query.org_id);
      },
    }),
    'GET /internal/notification-destinations/{destination_id}': route({
      summary:
        "A destination of the run's organization (`run_id`), with its secret references resolved there (`credentials`), for the run's `flow.notify` step to send with.",
      params: destinationPath,
      query: internalDestinationQuery,
      responses: {
        200: { description: 'The destination and its credentials', schema: internalDestination },
        404: { description: "No such live destination in the run's organization, or no such run (`resource_not_found`)" },
        422: { description: '`notification_secret_reference_refused`' },
        503: { description: '`secret_backend_unavailable`' },
      },
      async handle(ctx, { params, query }) {
        ctx.body = await internal.destination(params.destination_id, query.run_id);
      },
    }),
  };
}
