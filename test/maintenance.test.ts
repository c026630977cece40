import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { problems } from '../src/shared/api/problems.js';
import { housekeepingJobs } from '../src/daemon/domains/maintenance/housekeeping-jobs.js';
import type { MaintenanceJob } from '../src/daemon/domains/maintenance/job.js';
import { JobRunsRepo } from '../src/daemon/domains/maintenance/job-runs-repo.js';
import { MaintenanceRunner } from '../src/daemon/domains/maintenance/maintenance-runner.js';
import { isDatabaseUnavailable } from '../src/daemon/db/database-errors.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { unreachableKnex } from './helpers/database.js';
import { seedOrg } from './helpers/seed.js';

const TOKEN = 'maintenance-secret-0123456789-abcdef';
const DAY = 86_400_000;

let daemon: TestDaemon;
/** The pass's injected clock: each test sets the time its jobs see. */
let clockNow = new Date();
/** What the test jobs saw. */
const seen: { job: string; now: Date }[] = [];

const knex = () => daemon.services.db.knex;

/** Test jobs the daemon runs after its own: one failing with a problem, one with a plain error, one that records its `now`. */
const testJobs = (): MaintenanceJob[] => [
  {
    name: 'test.fails_with_problem',
    run: async () => {
      throw problems.resourceNotFound('Widget');
    },
  },
  {
    name: 'test.throws',
    run: async () => {
      throw new Error('boom');
    },
  },
  {
    name: 'test.records_now',
    run: async (now) => {
      seen.push({ job: 'test.records_now', now });
      return { saw: now.toISOString() };
    },
  },
];

beforeAll(async () => {
  daemon = await startTestDaemon(
    {
      SERVICE_INTERNAL_API_TOKEN: TOKEN,
      SERVICE_MAINTENANCE_TIMER_ENABLED: 'false',
      SERVICE_RUN_REAPER_INTERVAL_SECONDS: '7',
      SERVICE_AUDIT_RETENTION_DAYS: '30',
      SERVICE_WEBHOOK_DELIVERY_RETENTION_DAYS: '7',
      SERVICE_MAINTENANCE_HISTORY_DAYS: '2',
    },
    { maintenance: { jobs: testJobs, clock: () => clockNow } },
  );
});
afterAll(() => daemon?.close());
beforeEach(() => {
  clockNow = new Date();
  seen.length = 0;
});

interface TickAnswer {
  instance: string;
  jobs: {
    name: string;
    outcome: 'ok' | 'failed';
    started_at: string;
    duration_ms: number;
    summary: Record<string, unknown> | null;
    error: { code: string; message: string } | null;
  }[];
}

function tick(headers: Record<string, string> = { 'x-internal-token': TOKEN }): Promise<Response> {
  return fetch(`${daemon.url}/internal/maintenance/tick`, { method: 'POST', headers });
}

async function tickAnswer(): Promise<TickAnswer> {
  const response = await tick();
  expect(response.status).toBe(200);
  return (await response.json()) as TickAnswer;
}

const jobOf = (answer: TickAnswer, name: string) => answer.jobs.find((job) => job.name === name);

/** A job of the daemon's own housekeeping, by name, over the daemon's database and settings. */
function housekeeping(name: string, batch?: number): MaintenanceJob {
  const job = housekeepingJobs(daemon.services, batch).find((j) => j.name === name);
  if (!job) throw new Error(`no housekeeping job ${name}`);
  return job;
}

async function insertTicket(fields: { expiresAt: Date; consumedAt?: Date }): Promise<string> {
  const digest = createHash('sha256').update(randomUUID()).digest('hex');
  await knex()('stream_tickets').insert({
    ticket_digest: digest,
    user_sub: 'sub-maint',
    principal_json: JSON.stringify({ sub: 'sub-maint' }),
    expires_at: fields.expiresAt,
    consumed_at: fields.consumedAt ?? null,
  });
  return digest;
}

async function ticketDigests(): Promise<string[]> {
  const rows = (await knex()('stream_tickets').where({ user_sub: 'sub-maint' }).select('ticket_digest')) as { ticket_digest: string }[];
  return rows.map((row) => row.ticket_digest).sort();
}

describe('POST /internal/maintenance/tick', () => {
  it('refuses a missing or wrong internal token with 401 invalid_internal_token, running nothing', async () => {
    const before = Number(((await knex()('maintenance_job_runs').count({ n: '*' }))[0] as { n: string }).n);
    for (const headers of [{}, { 'x-internal-token': 'wrong' }] as Record<string, string>[]) {
      const response = await tick(headers);
      expect(response.status).toBe(401);
      expect(((await response.json()) as { code: string }).code).toBe('invalid_internal_token');
    }
    expect(seen).toEqual([]);
    const after = Number(((await knex()('maintenance_job_runs').count({ n: '*' }))[0] as { n: string }).n);
    expect(after).toBe(before);
  });

  it('runs every job in order and answers what each did; failing jobs are reported and the others still run', async () => {
    clockNow = new Date('2026-11-20T10:00:00.000Z');
    const answer = await tickAnswer();
    expect(answer.jobs.map((job) => job.name)).toEqual([
      'runs.reap_expired_leases',
      'approvals.expire_due',
      'schedules.fire_due',
      'schedule_fires.retention',
      'artifacts.sweep',
      'files.sweep_repositories',
      'notifications.deliver_due',
      'notifications.retention',
      'flow_attachments.sweep_blobs',
      'stream_tickets.expire',
      'worker_env_keys.expire',
      'run_tokens.expire',
      'webhook_deliveries.retention',
      'audit_logs.retention',
      'test.fails_with_problem',
      'test.throws',
      'test.records_now',
      'maintenance_job_runs.retention',
    ]);
    expect(jobOf(answer, 'test.fails_with_problem')).toMatchObject({
      outcome: 'failed',
      summary: null,
      error: { code: 'resource_not_found' },
    });
    expect(jobOf(answer, 'test.throws')).toMatchObject({
      outcome: 'failed',
      summary: null,
      error: { code: 'internal_error', message: 'boom' },
    });
    expect(jobOf(answer, 'test.records_now')).toMatchObject({
      outcome: 'ok',
      started_at: '2026-11-20T10:00:00.000Z',
      summary: { saw: '2026-11-20T10:00:00.000Z' },
      error: null,
    });
    expect(jobOf(answer, 'maintenance_job_runs.retention')).toMatchObject({ outcome: 'ok', summary: { retention_days: 2 } });
    expect(jobOf(answer, 'runs.reap_expired_leases')).toMatchObject({ outcome: 'ok', summary: { requeued: 0, failed: 0, cleared: 0 } });
    expect(seen.map((s) => s.now.toISOString())).toEqual(['2026-11-20T10:00:00.000Z']);
  });

  it("records each run in the history and as its job's last run, on the pass's clock", async () => {
    clockNow = new Date('2026-11-21T08:00:00.000Z');
    const answer = await tickAnswer();
    const runs = (await knex()('maintenance_job_runs').where({ instance: answer.instance, started_at: clockNow })) as {
      job: string;
      trigger: string;
      outcome: string;
      error_code: string | null;
      error_message: string | null;
      summary_json: Record<string, unknown> | null;
      duration_ms: number;
      finished_at: Date;
    }[];
    expect(runs.map((run) => run.job).sort()).toEqual(answer.jobs.map((job) => job.name).sort());
    for (const run of runs) {
      expect(run.trigger).toBe('tick');
      expect(run.duration_ms).toBeGreaterThanOrEqual(0);
      expect(new Date(run.finished_at).getTime()).toBe(clockNow.getTime() + run.duration_ms);
    }
    const ok = runs.find((run) => run.job === 'test.records_now')!;
    expect(ok).toMatchObject({ outcome: 'ok', error_code: null, summary_json: { saw: clockNow.toISOString() } });
    const failed = runs.find((run) => run.job === 'test.fails_with_problem')!;
    expect(failed).toMatchObject({ outcome: 'failed', error_code: 'resource_not_found', summary_json: null });
    expect(failed.error_message).not.toBeNull();

    const last = (await knex()('maintenance_jobs').whereIn('name', ['test.records_now', 'test.throws'])) as {
      name: string;
      last_outcome: string;
      last_started_at: Date;
      last_error_code: string | null;
      last_succeeded_at: Date | null;
      runs: string;
      failures: string;
    }[];
    const lastOk = last.find((row) => row.name === 'test.records_now')!;
    const lastFailed = last.find((row) => row.name === 'test.throws')!;
    expect(lastOk).toMatchObject({ last_outcome: 'ok', last_error_code: null });
    expect(new Date(lastOk.last_started_at).toISOString()).toBe(clockNow.toISOString());
    expect(Number(lastOk.failures)).toBe(0);
    expect(lastFailed).toMatchObject({ last_outcome: 'failed', last_error_code: 'internal_error', last_succeeded_at: null });
    expect(Number(lastFailed.failures)).toBe(Number(lastFailed.runs));
    expect(Number(lastFailed.runs)).toBeGreaterThanOrEqual(1);
  });
});

describe('the runner', () => {
  it("keeps a job's last success when it later fails, and counts runs and failures", async () => {
    let fail = false;
    const job: MaintenanceJob = {
      name: `test.flaky_${randomUUID().slice(0, 8)}`,
      run: async () => {
        if (fail) throw new Error('now failing');
        return 7;
      },
    };
    const clock = () => clockNow;
    const runner = new MaintenanceRunner([job], new JobRunsRepo(knex()), clock, 'runner-test', daemon.services.log);
    clockNow = new Date('2026-11-22T00:00:00.000Z');
    expect((await runner.runAll('timer')).jobs[0]).toMatchObject({ outcome: 'ok', summary: { result: 7 } });
    fail = true;
    clockNow = new Date('2026-11-22T00:05:00.000Z');
    expect((await runner.runAll('timer')).jobs[0]).toMatchObject({ outcome: 'failed', error: { code: 'internal_error' } });
    const row = await knex()('maintenance_jobs').where({ name: job.name }).first();
    expect(row).toMatchObject({ last_outcome: 'failed', last_trigger: 'timer', last_instance: 'runner-test' });
    expect([Number(row.runs), Number(row.failures)]).toEqual([2, 1]);
    const history = (await knex()('maintenance_job_runs').where({ job: job.name }).orderBy('started_at')) as {
      outcome: string;
      finished_at: Date;
    }[];
    expect(history.map((run) => run.outcome)).toEqual(['ok', 'failed']);
    // The first run's end, not its start: the pass's clock plus a duration that may round to a millisecond or more.
    expect(new Date(row.last_succeeded_at as string).toISOString()).toBe(new Date(history[0]!.finished_at).toISOString());
  });

  it('with the database lost, still runs every job, then throws the database error (the tick answers 503)', async () => {
    const nowhere = unreachableKnex();
    const ran: string[] = [];
    const jobs: MaintenanceJob[] = ['first', 'second'].map((name) => ({ name, run: async () => void ran.push(name) }));
    const runner = new MaintenanceRunner(jobs, new JobRunsRepo(nowhere), () => new Date(), 'lost', createLogger('silent'));
    try {
      const failure = await runner.runAll('tick').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(isDatabaseUnavailable(failure)).toBe(true);
      expect(ran).toEqual(['first', 'second']);
    } finally {
      await nowhere.destroy();
    }
  });

  it('refuses two jobs under one name', () => {
    const job: MaintenanceJob = { name: 'test.twice', run: async () => ({}) };
    expect(() => new MaintenanceRunner([job, job], new JobRunsRepo(knex()), () => new Date(), 'x', daemon.services.log)).toThrow();
  });
});

describe('the housekeeping jobs', () => {
  it('stream_tickets.expire deletes consumed tickets and those expired at now, keeping live ones', async () => {
    const now = new Date(Date.now() + 3600_000);
    const live = await insertTicket({ expiresAt: new Date(now.getTime() + 60_000) });
    await insertTicket({ expiresAt: new Date(now.getTime() - 1000) });
    await insertTicket({ expiresAt: new Date(now.getTime() + 60_000), consumedAt: new Date() });
    const summary = await housekeeping('stream_tickets.expire').run(now);
    expect(summary).toEqual({ deleted: 2 });
    expect(await ticketDigests()).toEqual([live]);
    await knex()('stream_tickets').where({ user_sub: 'sub-maint' }).delete();
  });

  it('deletes in bounded batches until nothing is left', async () => {
    const now = new Date();
    for (let i = 0; i < 5; i += 1) await insertTicket({ expiresAt: new Date(now.getTime() - 1000) });
    expect(await housekeeping('stream_tickets.expire', 2).run(now)).toEqual({ deleted: 5 });
    expect(await ticketDigests()).toEqual([]);
  });

  it('worker_env_keys.expire deletes keys whose expiry passed, keeping keys without one or not yet expired', async () => {
    const now = new Date();
    const key = (workerId: string, expiresAt: Date | null) => ({
      worker_id: workerId,
      algorithm: 'ECDH-ES+A256KW',
      public_key_jwk: JSON.stringify({ kty: 'OKP', crv: 'X25519', x: 'x' }),
      key_id: `k-${workerId}`,
      expires_at: expiresAt,
    });
    await knex()('worker_env_keys').insert([
      key('w-expired', new Date(now.getTime() - 1000)),
      key('w-later', new Date(now.getTime() + 60_000)),
      key('w-forever', null),
    ]);
    expect(await housekeeping('worker_env_keys.expire').run(now)).toEqual({ deleted: 1 });
    const left = (await knex()('worker_env_keys').select('worker_id').orderBy('worker_id')) as { worker_id: string }[];
    expect(left.map((row) => row.worker_id)).toEqual(['w-forever', 'w-later']);
  });

  it('run_tokens.expire deletes run tokens whose expiry passed, keeping live ones', async () => {
    const now = new Date();
    const orgId = await seedOrg(knex(), 'maint-tokens');
    // A token names a run that exists (run_tokens.run_id references runs).
    const [run] = (await knex()('runs')
      .insert({ org_id: orgId, flow_version: 1, flow_name: 'f', name: 'r', trigger_source: 'manual', workflow_id: randomUUID() })
      .returning('id')) as { id: string }[];
    const token = (digest: string, expiresAt: Date) => ({
      run_id: run!.id,
      step_id: 'plan',
      kind: 'iac_state',
      org_id: orgId,
      scope: 'state',
      token_digest: digest.padEnd(64, '0'),
      expires_at: expiresAt,
    });
    await knex()('run_tokens').insert([token('dead', new Date(now.getTime() - 1000)), token('live', new Date(now.getTime() + 60_000))]);
    expect(await housekeeping('run_tokens.expire').run(now)).toEqual({ deleted: 1 });
    const left = (await knex()('run_tokens').where({ org_id: orgId }).select('token_digest')) as { token_digest: string }[];
    expect(left.map((row) => row.token_digest)).toEqual(['live'.padEnd(64, '0')]);
  });

  it('webhook_deliveries.retention deletes delivery records older than the retention, freeing their idempotency keys', async () => {
    const orgId = await seedOrg(knex(), 'maint-hooks');
    const [endpoint] = (await knex()('webhook_endpoints')
      .insert({ org_id: orgId, name: 'maint', path_token: randomUUID().replace(/-/g, '') })
      .returning('id')) as { id: string }[];
    const now = new Date();
    const delivery = (key: string, createdAt: Date) => ({
      webhook_endpoint_id: endpoint!.id,
      idempotency_key: key,
      signature_valid: true,
      response_status: 202,
      created_at: createdAt,
    });
    await knex()('webhook_deliveries').insert([
      delivery('old', new Date(now.getTime() - 8 * DAY)),
      delivery('recent', new Date(now.getTime() - 6 * DAY)),
    ]);
    const summary = await housekeeping('webhook_deliveries.retention').run(now);
    expect(summary).toMatchObject({ deleted: 1, retention_days: 7 });
    const left = (await knex()('webhook_deliveries').where({ webhook_endpoint_id: endpoint!.id }).select('idempotency_key')) as {
      idempotency_key: string;
    }[];
    expect(left.map((row) => row.idempotency_key)).toEqual(['recent']);
    // The key is free again: an accepted delivery may carry it.
    await knex()('webhook_deliveries').insert(delivery('old', now));
  });

  it('audit_logs.retention deletes entries older than SERVICE_AUDIT_RETENTION_DAYS at the pass clock', async () => {
    const now = new Date('2027-06-01T00:00:00.000Z');
    await knex()('audit_logs').insert([
      { event_type: 'test.maint_old', ts: new Date(now.getTime() - 31 * DAY) },
      { event_type: 'test.maint_recent', ts: new Date(now.getTime() - 29 * DAY) },
    ]);
    const summary = await housekeeping('audit_logs.retention').run(now);
    expect(summary).toMatchObject({ retention_days: 30, before: '2027-05-02T00:00:00.000Z' });
    expect((summary as { deleted: number }).deleted).toBeGreaterThanOrEqual(1);
    const left = (await knex()('audit_logs').whereIn('event_type', ['test.maint_old', 'test.maint_recent']).select('event_type')) as {
      event_type: string;
    }[];
    expect(left.map((row) => row.event_type)).toEqual(['test.maint_recent']);
  });

  it('maintenance_job_runs.retention deletes history older than SERVICE_MAINTENANCE_HISTORY_DAYS, keeping each job last run', async () => {
    clockNow = new Date('2026-11-01T00:00:00.000Z');
    const first = await tickAnswer();
    // Three days later the first pass's history is past the two days kept.
    clockNow = new Date('2026-11-04T00:00:00.000Z');
    const later = await tickAnswer();
    expect((jobOf(later, 'maintenance_job_runs.retention')!.summary as { deleted: number }).deleted).toBeGreaterThanOrEqual(
      first.jobs.length,
    );
    const old = await knex()('maintenance_job_runs').where('started_at', '<', new Date('2026-11-02T00:00:00.000Z')).count({ n: '*' });
    expect(Number((old[0] as { n: string }).n)).toBe(0);
    expect(await knex()('maintenance_jobs').where({ name: 'test.records_now' }).first()).toBeDefined();
  });
});

describe('a daemon with the defaults (retention off, the timer on)', () => {
  let keeping: TestDaemon;
  beforeAll(async () => {
    keeping = await startTestDaemon({ SERVICE_RUN_REAPER_INTERVAL_SECONDS: '7', SERVICE_MAINTENANCE_INTERVAL_SECONDS: '3600' });
  });
  afterAll(() => keeping?.close());

  it('the audit and delivery retention jobs delete nothing and say so', async () => {
    const db = keeping.services.db.knex;
    await db('audit_logs').insert({ event_type: 'test.ancient', ts: new Date('2000-01-01T00:00:00Z') });
    const answer = await keeping.maintenance.runner.runAll('tick');
    expect(answer.jobs.find((job) => job.name === 'audit_logs.retention')).toMatchObject({
      outcome: 'ok',
      summary: { deleted: 0, retention_days: 0 },
    });
    expect(answer.jobs.find((job) => job.name === 'webhook_deliveries.retention')).toMatchObject({
      outcome: 'ok',
      summary: { deleted: 0, retention_days: 0 },
    });
    expect(await db('audit_logs').where({ event_type: 'test.ancient' }).first()).toBeDefined();
  });

  it('SERVICE_MAINTENANCE_TIMER_ENABLED=false leaves the timer stopped; by default it runs', () => {
    expect(daemon.maintenance.timer.started).toBe(false);
    expect(keeping.maintenance.timer.started).toBe(true);
  });

  it('the interval is SERVICE_MAINTENANCE_INTERVAL_SECONDS, else the former SERVICE_RUN_REAPER_INTERVAL_SECONDS', () => {
    expect(daemon.maintenance.timer.intervalSeconds).toBe(7);
    expect(keeping.maintenance.timer.intervalSeconds).toBe(3600);
  });
});
