import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';

/** Rows the dashboard tests count, written straight into the tables (their routes are other domains'). */

export interface RunSeed {
  readonly orgId: string;
  readonly flowId?: string | null;
  readonly flowName?: string;
  readonly status: string;
  readonly createdAt: Date;
  readonly finishedAt?: Date | null;
  readonly deleted?: boolean;
}

export async function seedRun(knex: Knex, seed: RunSeed): Promise<string> {
  const finished = ['succeeded', 'failed', 'cancelled'].includes(seed.status);
  const [row] = await knex('runs')
    .insert({
      org_id: seed.orgId,
      flow_id: seed.flowId ?? null,
      flow_version: 1,
      flow_name: seed.flowName ?? 'flow',
      name: `run ${seed.status}`,
      status: seed.status,
      trigger_source: 'manual',
      workflow_id: `dash-${randomUUID()}`,
      created_at: seed.createdAt,
      finished_at: seed.finishedAt ?? (finished ? new Date(seed.createdAt.getTime() + 60_000) : null),
      deleted_at: seed.deleted ? seed.createdAt : null,
    })
    .returning('id');
  return (row as { id: string }).id;
}

export async function seedApproval(knex: Knex, orgId: string, runId: string, status: string): Promise<void> {
  await knex('approvals').insert({
    run_id: runId,
    org_id: orgId,
    step_id: 'gate',
    status,
    requested_by_worker: 'w1',
    requested_attempt: 1,
  });
}

export async function seedSchedule(
  knex: Knex,
  orgId: string,
  flowId: string,
  fields: { enabled: boolean; deleted?: boolean },
): Promise<void> {
  await knex('schedules').insert({
    org_id: orgId,
    flow_id: flowId,
    name: `s-${randomUUID().slice(0, 8)}`,
    cron: '0 * * * *',
    timezone: 'UTC',
    enabled: fields.enabled,
    deleted_at: fields.deleted ? new Date() : null,
  });
}

/** `hours` hours before `from`. */
export const hoursBefore = (from: Date, hours: number) => new Date(from.getTime() - hours * 3_600_000);
