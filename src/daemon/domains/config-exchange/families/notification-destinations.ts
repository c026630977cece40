import { z } from 'zod';
import { DESTINATION_CONFIGS, DESTINATION_KINDS, NOTIFICATION_EVENTS } from '../../../../shared/api/notifications.js';
import { changes } from '../../inventory/access.js';
import { defineFamily, orgOf, type FamilyContext, type ItemIssue, type SectionIssue } from '../family.js';
import type { NotificationsRowsRepo } from '../repos/notifications-rows-repo.js';
import { orgAuditRecorder, refused } from './references.js';

const item = z
  .object({
    name: z.string().trim().min(1).max(255),
    description: z.string().max(10_000).nullable().default(null),
    kind: z.enum(DESTINATION_KINDS),
    config: z.record(z.string(), z.unknown()).describe("The kind's settings; credentials only as secret references (fields ending _ref)"),
    enabled: z.boolean().default(true),
    default_events: z.array(z.enum(NOTIFICATION_EVENTS)).max(NOTIFICATION_EVENTS.length).default([]),
  })
  .strict();
type Item = z.infer<typeof item>;

const FAMILY = 'notification_destinations';
const SETTINGS = Object.keys(item.shape) as (keyof Item)[];
const audit = orgAuditRecorder('notification_destination:manage', 'notification_destination');

/** The kind's settings with their defaults filled in, as the destinations routes store them. */
function storedConfig(i: Item): Record<string, unknown> {
  const parsed = DESTINATION_CONFIGS[i.kind].safeParse(i.config);
  return parsed.success ? (parsed.data as Record<string, unknown>) : i.config;
}

/**
 * The organization's live notification destinations, keyed by name: kind, settings (secret references
 * travel as written, never a value: a reference names a secret, so it resolves on the target as it did
 * here), enabled and flow defaults. The references are resolved when a message is sent, as for a
 * destination whose secret was deleted after it was made.
 */
export function notificationDestinationsFamily(repo: NotificationsRowsRepo) {
  const idOf = async (ctx: FamilyContext, name: string) => {
    const id = await repo.destinationId(ctx.db, orgOf(ctx).id, name);
    if (!id) throw new Error(`notification destination ${name} vanished during the apply`);
    return id;
  };
  const columnsOf = (i: Item) => ({
    name: i.name,
    description: i.description,
    kind: i.kind,
    config_json: storedConfig(i),
    enabled: i.enabled,
    default_events: i.default_events,
  });
  return defineFamily<Item>({
    name: FAMILY,
    scope: 'org',
    dependsOn: [],
    summary: "The organization's notification destinations by name: kind, config (secret references only), enabled, flow defaults.",
    item,
    keyOf: (i) => i.name,
    check(i): ItemIssue[] {
      const parsed = DESTINATION_CONFIGS[i.kind].safeParse(i.config);
      return parsed.success
        ? []
        : parsed.error.issues.map((issue) => ({ path: ['config', ...issue.path].join('.'), message: issue.message }));
    },
    // Live names are unique regardless of case (as the destinations API holds them).
    checkSection(items): SectionIssue[] {
      const first = new Map<string, number>();
      return items.flatMap((i, index) => {
        const folded = i.name.toLowerCase();
        if (!first.has(folded)) first.set(folded, index);
        const earlier = first.get(folded)!;
        return earlier === index
          ? []
          : [{ index, path: 'name', message: `item ${earlier} has this name but for case (names are unique regardless of case)` }];
      });
    },
    async list(ctx) {
      const rows = await repo.destinations(ctx.db, orgOf(ctx).id);
      return rows
        .map((r) => ({
          name: r.name,
          description: r.description,
          kind: r.kind as Item['kind'],
          config: r.config_json,
          enabled: r.enabled,
          default_events: r.default_events as Item['default_events'],
        }))
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    },
    async create(ctx, i) {
      if (await repo.destinationNameTaken(ctx.db, orgOf(ctx).id, i.name)) {
        throw refused(FAMILY, i.name, 'name_taken', 'a live destination of the organization has this name but for case.');
      }
      const id = await repo.insertDestination(ctx.db, orgOf(ctx).id, columnsOf(i), ctx.actor.sub);
      await audit(ctx, 'entity.created', id, { destination: i });
    },
    async update(ctx, before, after) {
      const id = await idOf(ctx, before.name);
      await repo.updateDestination(ctx.db, id, columnsOf(after), ctx.actor.sub);
      await audit(ctx, 'entity.updated', id, { name: after.name, changes: changes(before, after, SETTINGS) });
    },
    async remove(ctx, i) {
      const id = await idOf(ctx, i.name);
      await repo.softDeleteDestination(ctx.db, id, ctx.actor.sub);
      await audit(ctx, 'entity.deleted', id, { name: i.name });
    },
  });
}
