import { z } from 'zod';
import { Problem } from '../../../../shared/api/problem.js';
import { changes } from '../../inventory/access.js';
import { CronClock, spelledTimezone } from '../../schedules/cron.js';
import { defineFamily, orgOf, type FamilyContext, type ItemIssue } from '../family.js';
import type { FlowReferencesRepo } from '../repos/flow-references-repo.js';
import type { ScheduleColumns, SchedulesRowsRepo } from '../repos/schedules-rows-repo.js';
import { flowReference, orgAuditRecorder, refused, unresolved } from './references.js';

const item = z
  .object({
    name: z.string().trim().min(1).max(255),
    description: z.string().max(10_000).nullable().default(null),
    flow: z.string().min(1).max(255).nullable().describe("The name of the organization's flow it runs"),
    flow_version: z.int().min(1).nullable().default(null),
    cron: z.string().min(1).max(255),
    // Spelled as the schedules API stores it, so a bundle's `europe/paris` converges on `Europe/Paris`.
    timezone: z
      .string()
      .min(1)
      .max(64)
      .default('UTC')
      .overwrite((timezone) => spelledTimezone(timezone) ?? timezone),
    params: z.record(z.string(), z.unknown()).default({}),
    targets: z
      .record(z.string(), z.array(z.string().min(1).max(255)))
      .default({})
      .describe('Target role -> device names'),
    enabled: z.boolean().default(true),
    misfire_policy: z.enum(['last', 'none', 'all']).default('last'),
  })
  .strict();
type Item = z.infer<typeof item>;

const FAMILY = 'schedules';
const SETTINGS = Object.keys(item.shape).filter((k) => k !== 'name') as (keyof Item)[];

/** Sorted names per role, so an export does not depend on the order ids were stored in. */
function sortedTargets(targets: Record<string, string[]>): Record<string, string[]> {
  return Object.fromEntries(
    Object.keys(targets)
      .sort()
      .map((role) => [role, [...targets[role]!].sort()]),
  );
}

/**
 * The organization's live schedules, keyed by name: the flow by name, targets as device names. The
 * expression and zone are checked at plan time (as the schedules API does); the next fire time is the
 * target's own, computed from its clock when applied. The run fields (flow, version, params, targets)
 * are not vetted by run admission here (the flow may come in the same bundle): each fire's admission
 * checks them, and a refused fire shows in `last_fire_error` as for any schedule.
 */
export function schedulesFamily(repo: SchedulesRowsRepo, flows: FlowReferencesRepo) {
  const record = orgAuditRecorder('schedule:manage', 'schedule');
  const columnsOf = async (ctx: FamilyContext, i: Item): Promise<ScheduleColumns> => {
    const orgId = orgOf(ctx).id;
    const flowId = i.flow === null ? null : await flowReference(flows, ctx, FAMILY, i.name, i.flow);
    const names = [...new Set(Object.values(i.targets).flat())];
    const ids = await repo.deviceIds(ctx.db, orgId, names);
    const missing = names.find((n) => !ids.has(n));
    if (missing !== undefined) throw unresolved(FAMILY, i.name, 'targets', missing);
    const clock = CronClock.parse(i.cron, i.timezone);
    return {
      name: i.name,
      description: i.description,
      flow_id: flowId,
      flow_version: i.flow_version,
      cron: clock.expression,
      timezone: clock.timezone,
      params_json: i.params,
      targets_json: Object.fromEntries(Object.entries(i.targets).map(([role, devices]) => [role, devices.map((n) => ids.get(n)!)])),
      enabled: i.enabled,
      misfire_policy: i.misfire_policy,
      next_fire_at: i.enabled ? clock.next(new Date()) : null,
    };
  };
  return defineFamily<Item>({
    name: FAMILY,
    scope: 'org',
    dependsOn: ['flows', 'devices'],
    summary:
      "The organization's schedules: cron, time zone, misfire policy, params, enabled, the flow by name and targets as device names.",
    item,
    keyOf: (i) => i.name,
    check(i): ItemIssue[] {
      try {
        CronClock.parse(i.cron, i.timezone);
        return [];
      } catch (error) {
        if (!(error instanceof Problem)) throw error;
        return [{ path: error.code === 'unknown_timezone' ? 'timezone' : 'cron', message: error.message }];
      }
    },
    async list(ctx) {
      const orgId = orgOf(ctx).id;
      const rows = await repo.live(ctx.db, orgId);
      // Schedule names are not unique: two live ones of a name would be one key, updated at random.
      rows.forEach((row, n) => {
        if (n > 0 && rows[n - 1]!.name === row.name)
          throw refused(FAMILY, row.name, 'duplicate_name', 'two live schedules share this name; rename one to exchange them');
      });
      const names = await repo.deviceNames(ctx.db, orgId, [...new Set(rows.flatMap((r) => Object.values(r.targets_json).flat()))]);
      return rows.map((r) => ({
        name: r.name,
        description: r.description,
        flow: r.flow_name,
        flow_version: r.flow_version,
        cron: r.cron,
        timezone: r.timezone,
        params: r.params_json,
        targets: sortedTargets(
          Object.fromEntries(Object.entries(r.targets_json).map(([role, ids]) => [role, ids.map((id) => names.get(id) ?? id)])),
        ),
        enabled: r.enabled,
        misfire_policy: r.misfire_policy as Item['misfire_policy'],
      }));
    },
    async create(ctx, i) {
      const id = await repo.insert(ctx.db, orgOf(ctx).id, await columnsOf(ctx, i), ctx.actor.sub);
      await record(ctx, 'entity.created', id, { schedule: i });
    },
    async update(ctx, before, after) {
      const id = await repo.idOf(ctx.db, orgOf(ctx).id, before.name);
      const { next_fire_at, ...columns } = await columnsOf(ctx, after);
      // The next fire time moves only when what decides it changed (as a PATCH of the schedules API).
      const reschedules = before.cron !== after.cron || before.timezone !== after.timezone || before.enabled !== after.enabled;
      await repo.update(ctx.db, id, reschedules ? { ...columns, next_fire_at } : columns, ctx.actor.sub);
      await record(ctx, 'entity.updated', id, { name: after.name, changes: changes(before, after, SETTINGS) });
    },
    async remove(ctx, i) {
      const id = await repo.idOf(ctx.db, orgOf(ctx).id, i.name);
      await repo.softDelete(ctx.db, id, ctx.actor.sub);
      await record(ctx, 'entity.deleted', id, { name: i.name });
    },
  });
}
