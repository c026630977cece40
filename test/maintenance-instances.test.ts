import knexFactory, { type Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MaintenanceJob } from '../src/daemon/domains/maintenance/job.js';
import { MAINTENANCE_LOCK_KEY } from '../src/daemon/domains/maintenance/pass-lock.js';
import { BACKEND } from './helpers/backend.js';
import { startTestDaemon, startTestDaemonOn, type TestDaemon } from './helpers/daemon.js';

/**
 * Two daemons on one PostgreSQL database, each with its maintenance timer every second: a pass runs in
 * one of them at a time. Shown by a probe job both run, which holds the first pass it enters until the
 * test has probed the lock, and which counts how many passes are inside it at once.
 */
describe.runIf(BACKEND === 'postgres')('the maintenance timer on two instances', () => {
  let a: TestDaemon;
  let b: TestDaemon;
  let other: Knex;
  let inside = 0;
  let mostInside = 0;
  const entered: string[] = [];
  let firstEntered: (label: string) => void;
  const first = new Promise<string>((resolve) => (firstEntered = resolve));
  let release: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));

  const probe = (label: string): MaintenanceJob => ({
    name: 'test.probe',
    async run() {
      inside += 1;
      mostInside = Math.max(mostInside, inside);
      entered.push(label);
      try {
        if (entered.length === 1) {
          firstEntered(label);
          await released;
        }
        return { label };
      } finally {
        inside -= 1;
      }
    },
  });

  beforeAll(async () => {
    const env = { SERVICE_MAINTENANCE_INTERVAL_SECONDS: '1', SERVICE_SECRETS_ENCRYPTION_KEY: 'ab'.repeat(32) };
    a = await startTestDaemon(env, { maintenance: { jobs: () => [probe('a')] } });
    b = await startTestDaemonOn(a.location, env, { maintenance: { jobs: () => [probe('b')] } });
    const url = (a.services.db.knex.client as { config: { connection: unknown } }).config.connection as string;
    other = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  });
  afterAll(async () => {
    release?.();
    await other?.destroy();
    await b?.close();
    await a?.close();
  });

  async function lockFree(): Promise<boolean> {
    const taken = await other.raw<{ rows: { locked: boolean }[] }>('SELECT pg_try_advisory_lock(?::bigint) AS locked', [
      MAINTENANCE_LOCK_KEY,
    ]);
    if (taken.rows[0]?.locked !== true) return false;
    await other.raw('SELECT pg_advisory_unlock(?::bigint)', [MAINTENANCE_LOCK_KEY]);
    return true;
  }

  async function instancesThatRan(): Promise<string[]> {
    const rows = (await a.services.db.knex('maintenance_job_runs').where({ job: 'test.probe', trigger: 'timer' }).distinct('instance')) as {
      instance: string;
    }[];
    return rows.map((row) => row.instance).sort();
  }

  it('holds the lock for the whole pass: the other instance skips its passes meanwhile, then both run passes, never two at once', async () => {
    const holder = await first;
    const waiting = holder === 'a' ? b : a;
    // The first pass is inside the probe job: the lock is held, and the other instance's pass is skipped.
    expect(await lockFree()).toBe(false);
    expect(await waiting.maintenance.timer.passOnce()).toEqual({ ran: false });
    expect(entered).toEqual([holder]);
    release();

    // Both instances take turns on their timers.
    const both = [a.maintenance.runner.instance, b.maintenance.runner.instance].sort();
    for (let i = 0; i < 300 && (await instancesThatRan()).length < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await instancesThatRan()).toEqual(both);
    expect(entered).toContain('a');
    expect(entered).toContain('b');
    expect(mostInside).toBe(1);

    // Every pass's runs are recorded by the instance that ran it, in order: no pass started inside another's probe run.
    const runs = (await a.services.db
      .knex('maintenance_job_runs')
      .where({ job: 'test.probe', trigger: 'timer' })
      .orderBy('started_at')) as {
      instance: string;
      summary_json: { label: string };
    }[];
    for (const run of runs) {
      expect(run.instance).toBe(run.summary_json.label === 'a' ? a.maintenance.runner.instance : b.maintenance.runner.instance);
    }
  });
});
