import { z } from 'zod';
import { NOTIFICATION_EVENTS } from '../../../../shared/api/notifications.js';
import { changes } from '../../inventory/access.js';
import { defineFamily, orgOf, type FamilyContext } from '../family.js';
import type { NotificationsRowsRepo } from '../repos/notifications-rows-repo.js';
import type { FlowReferencesRepo } from '../repos/flow-references-repo.js';
import { flowReference, orgAuditRecorder, refused, unresolved } from './references.js';

const item = z
  .object({
    flow: z.string().min(1).max(255).describe("The flow's name (the organization's, else the shared one's)"),
    destination: z.string().min(1).max(255).describe('The name of a notification destination of the organization'),
    events: z.array(z.enum(NOTIFICATION_EVENTS)).min(1).max(NOTIFICATION_EVENTS.length),
    enabled: z.boolean().default(true),
  })
  .strict();
type Item = z.infer<typeof item>;

const FAMILY = 'notification_subscriptions';
const keyOf = (i: { flow: string; destination: string }) => `${i.flow}/${i.destination}`;
const audit = orgAuditRecorder('flow_subscription:manage', 'flow_subscription');

/**
 * The organization's flow subscriptions (which events of a flow's runs go to a destination, replacing the
 * destination's flow defaults for that flow), keyed `<flow>/<destination>` by name.
 */
export function notificationSubscriptionsFamily(repo: NotificationsRowsRepo, flows: FlowReferencesRepo) {
  const idsOf = async (ctx: FamilyContext, i: Item) => {
    const orgId = orgOf(ctx).id;
    const flowId = await flowReference(flows, ctx, FAMILY, keyOf(i), i.flow);
    const destinationId = await repo.destinationId(ctx.db, orgId, i.destination);
    if (!destinationId) throw unresolved(FAMILY, keyOf(i), 'destination', i.destination);
    return { flow_id: flowId, destination_id: destinationId };
  };
  const idOf = async (ctx: FamilyContext, i: Item) => {
    const { flow_id, destination_id } = await idsOf(ctx, i);
    const id = await repo.subscriptionId(ctx.db, orgOf(ctx).id, flow_id, destination_id);
    if (!id) throw new Error(`flow subscription ${keyOf(i)} vanished during the apply`);
    return id;
  };
  return defineFamily<Item>({
    name: FAMILY,
    scope: 'org',
    dependsOn: ['flows', 'notification_destinations'],
    summary: "The organization's flow subscriptions to its notification destinations, keyed <flow>/<destination> by name: events, enabled.",
    item,
    keyOf,
    async list(ctx) {
      const rows = await repo.subscriptions(ctx.db, orgOf(ctx).id);
      const items = rows
        .map((r) => ({ flow: r.flow_name, destination: r.destination_name, events: r.events as Item['events'], enabled: r.enabled }))
        .sort((a, b) => (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0));
      for (let n = 1; n < items.length; n++)
        if (keyOf(items[n]!) === keyOf(items[n - 1]!))
          throw refused(FAMILY, keyOf(items[n]!), 'duplicate_name', "the organization's flow and a shared flow share this name");
      return items;
    },
    async create(ctx, i) {
      const ids = await idsOf(ctx, i);
      const id = await repo.insertSubscription(ctx.db, orgOf(ctx).id, { ...ids, events: i.events, enabled: i.enabled }, ctx.actor.sub);
      await audit(ctx, 'entity.created', id, { key: keyOf(i), subscription: i });
    },
    async update(ctx, before, after) {
      const id = await idOf(ctx, before);
      await repo.updateSubscription(ctx.db, id, { events: after.events, enabled: after.enabled }, ctx.actor.sub);
      await audit(ctx, 'entity.updated', id, { key: keyOf(after), changes: changes(before, after, ['events', 'enabled']) });
    },
    async remove(ctx, i) {
      const id = await idOf(ctx, i);
      await repo.deleteSubscription(ctx.db, id);
      await audit(ctx, 'entity.deleted', id, { key: keyOf(i) });
    },
  });
}
