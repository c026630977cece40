import knexFactory from 'knex';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuditRepo } from '../src/daemon/audit/audit-repo.js';
import { AuditWriter } from '../src/daemon/audit/audit-writer.js';
import { LeaseEnds } from '../src/daemon/domains/workers/lease-ends.js';
import { LeasesRepo } from '../src/daemon/domains/workers/leases-repo.js';
import { JobRunsRepo } from '../src/daemon/domains/maintenance/job-runs-repo.js';
import { MaintenanceRunner } from '../src/daemon/domains/maintenance/maintenance-runner.js';
import { MaintenanceTimer } from '../src/daemon/domains/maintenance/maintenance-timer.js';
import { inProcessPassLock, MAINTENANCE_LOCK_KEY } from '../src/daemon/domains/maintenance/pass-lock.js';
import { leaseReapingJob, Reaper } from '../src/daemon/domains/workers/reaper.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { BACKEND } from './helpers/backend.js';
import { unreachableKnex } from './helpers/database.js';
import {
  beat,
  control,
  emptyQueue,
  INTERNAL_TOKEN,
  reaperOf,
  startRun,
  startWorkerWorld,
  type WorkerWorld,
} from './helpers/workers-fixtures.js';

let world: WorkerWorld;
const knex = () => world.daemon.services.db.knex;

beforeAll(async () => {
  world = await startWorkerWorld();
});
afterAll(() => world?.close());
afterEach(() => emptyQueue(world));

/** A run claimed by `worker`, its lease then put in the past. */
async function expiredRun(worker: string): Promise<string> {
  const id = await startRun(world);
  const answer = await beat(world, { worker_id: worker, free_slots: 1 });
  expect(answer.assignments.map((a) => a.run_id)).toEqual([id]);
  await expire(id);
  return id;
}

async function expire(id: string): Promise<void> {
  await knex()('runs')
    .where({ id })
    .update({ lease_expires_at: knex().raw(`now() - interval '1 second'`) });
}

async function lastEvent(id: string) {
  const row = await knex()('run_events').where({ run_id: id }).orderBy('seq', 'desc').first();
  return row as { seq: string; type: string; data: Record<string, unknown> };
}

describe('the reaper', () => {
  it('requeues a run whose lease expired before a step started', async () => {
    const id = await expiredRun('w-reap-1');
    const result = await reaperOf(world).reapExpiredLeases();
    expect(result.requeued).toEqual([id]);
    const row = await knex()('runs').where({ id }).first();
    expect(row).toMatchObject({ status: 'queued', worker_id: null, lease_expires_at: null, started_at: null, claimed_at: null });
    const event = await lastEvent(id);
    expect(Number(event.seq)).toBe(2);
    expect(event).toMatchObject({
      type: 'run.status',
      data: { from: 'running', to: 'queued', reason: 'requeued', worker_id: 'w-reap-1', attempt: 1 },
    });
  });

  it('fails a run whose lease expired after a step started, with worker_lost and a run.failed audit entry', async () => {
    const id = await expiredRun('w-reap-2');
    await knex()('step_runs').insert({ run_id: id, attempt: 1, step_id: 'first', handler: 'general.noop', started_at: knex().fn.now() });
    const result = await reaperOf(world).reapExpiredLeases();
    expect(result.failed).toEqual([id]);
    const row = await knex()('runs').where({ id }).first();
    expect(row).toMatchObject({ status: 'failed', lease_expires_at: null });
    expect(row.finished_at).not.toBeNull();
    expect(row.error_json).toMatchObject({ code: 'worker_lost', worker_id: 'w-reap-2', attempt: 1 });
    expect((await lastEvent(id)).data).toMatchObject({ from: 'running', to: 'failed', reason: 'worker_lost' });
    const entry = await knex()('audit_logs').where({ resource_id: id, event_type: 'run.failed' }).first();
    expect(entry).toMatchObject({ action: 'internal:run_callbacks', resource_type: 'run', org_id: world.orgId });
    expect(entry.details_json).toMatchObject({ workflow_id: `run-${id}`, status: 'failed', error: { code: 'worker_lost' } });
  });

  it('a step run of an earlier attempt does not count: the run is requeued', async () => {
    const id = await expiredRun('w-reap-3');
    await knex()('runs').where({ id }).update({ attempt: 2 });
    await knex()('step_runs').insert({ run_id: id, attempt: 1, step_id: 'first', handler: 'general.noop', started_at: knex().fn.now() });
    expect((await reaperOf(world).reapExpiredLeases()).requeued).toEqual([id]);
  });

  it('leaves a paused run paused, without a worker, and queued when resumed', async () => {
    const id = await startRun(world);
    await beat(world, { worker_id: 'w-reap-4', free_slots: 1 });
    await control(world, id, 'pause');
    await expire(id);
    expect((await reaperOf(world).reapExpiredLeases()).requeued).toEqual([id]);
    expect(await knex()('runs').where({ id }).first()).toMatchObject({ status: 'paused', worker_id: null, started_at: null });
    await control(world, id, 'resume');
    expect((await knex()('runs').where({ id }).first()).status).toBe('queued');
  });

  it('only ends the lease of a run that finished while held', async () => {
    const id = await startRun(world);
    await beat(world, { worker_id: 'w-reap-5', free_slots: 1 });
    await control(world, id, 'cancel');
    await expire(id);
    expect((await reaperOf(world).reapExpiredLeases()).cleared).toEqual([id]);
    expect(await knex()('runs').where({ id }).first()).toMatchObject({
      status: 'cancelled',
      lease_expires_at: null,
      worker_id: 'w-reap-5',
    });
  });

  it('leaves a run whose lease has not expired', async () => {
    const id = await startRun(world);
    await beat(world, { worker_id: 'w-reap-6', free_slots: 1 });
    const result = await reaperOf(world).reapExpiredLeases();
    expect([...result.requeued, ...result.failed, ...result.cleared]).not.toContain(id);
    expect((await knex()('runs').where({ id }).first()).status).toBe('running');
  });

  it.runIf(BACKEND === 'postgres')("skips its timer pass while another instance holds the maintenance pass's lock", async () => {
    const id = await expiredRun('w-reap-7');
    const url = (world.daemon.services.db.knex.client as { config: { connection: unknown } }).config.connection;
    const other = knexFactory({ client: 'pg', connection: url as string, pool: { min: 0, max: 1 } });
    try {
      await other.transaction(async (trx) => {
        await trx.raw('SELECT pg_advisory_xact_lock(?::bigint)', [MAINTENANCE_LOCK_KEY]);
        expect(await world.daemon.maintenance.timer.passOnce()).toEqual({ ran: false });
        expect((await knex()('runs').where({ id }).first()).status).toBe('running');
      });
      expect(await world.daemon.maintenance.timer.passOnce()).toEqual({ ran: true });
      expect((await knex()('runs').where({ id }).first()).status).toBe('queued');
    } finally {
      await other.destroy();
    }
  });

  it('is a job of the maintenance tick: POST /internal/maintenance/tick reaps an expired lease', async () => {
    const id = await expiredRun('w-reap-8');
    const response = await fetch(`${world.daemon.url}/internal/maintenance/tick`, {
      method: 'POST',
      headers: { 'x-internal-token': INTERNAL_TOKEN },
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { jobs: { name: string; outcome: string; summary: Record<string, unknown> }[] };
    expect(answer.jobs.find((job) => job.name === 'runs.reap_expired_leases')).toMatchObject({
      outcome: 'ok',
      summary: { requeued: 1, failed: 0, cleared: 0 },
    });
    expect((await knex()('runs').where({ id }).first()).status).toBe('queued');
  });

  it("runs on the daemon's maintenance timer, whose interval SERVICE_RUN_REAPER_INTERVAL_SECONDS still sets", async () => {
    const timed = await startWorkerWorld({ SERVICE_RUN_REAPER_INTERVAL_SECONDS: '1' });
    try {
      const id = await startRun(timed);
      await beat(timed, { worker_id: 'w-timer', free_slots: 1 });
      const db = timed.daemon.services.db.knex;
      await db('runs')
        .where({ id })
        .update({ lease_expires_at: db.raw(`now() - interval '1 second'`) });
      let status = 'running';
      for (let i = 0; i < 100 && status === 'running'; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await db('runs').where({ id }).first()).status;
      }
      expect(status).toBe('queued');
    } finally {
      await timed.close();
    }
  });
});

describe("the maintenance timer with the database down (the reaper's timer moved there)", () => {
  it('logs each failed pass and tries again, never throwing', async () => {
    const nowhere = unreachableKnex();
    const lines: { level: number; msg: string }[] = [];
    const log = createLogger('warn', { write: (line: string) => lines.push(JSON.parse(line) as { level: number; msg: string }) });
    const leases = new LeasesRepo(nowhere);
    const reaper = new Reaper(leases, new LeaseEnds(leases, new AuditWriter(new AuditRepo(nowhere))));
    const runner = new MaintenanceRunner([leaseReapingJob(reaper, log)], new JobRunsRepo(nowhere), () => new Date(), 'test', log);
    const timer = new MaintenanceTimer(runner, inProcessPassLock, log, 1);
    timer.start();
    try {
      const failedPasses = () => lines.filter((line) => line.msg.startsWith('the maintenance pass failed')).length;
      for (let i = 0; i < 100 && failedPasses() < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(failedPasses()).toBeGreaterThanOrEqual(2);
    } finally {
      await timer.stop();
      await nowhere.destroy();
    }
  });
});

describe('shutdown', () => {
  it('answers a waiting heartbeat at once when the daemon stops', async () => {
    const stopping = await startWorkerWorld();
    const waiting = beat(stopping, { worker_id: 'w-stop', free_slots: 1, wait_s: 25 });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const closed = stopping.close();
    const answer = await waiting;
    // Answered while the daemon was still closing: the wait did not hold the shutdown.
    expect(answer.assignments).toEqual([]);
    await closed;
  });
});
