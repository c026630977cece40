import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvironmentVariablesAnswer } from '../src/shared/api/environment-variables.js';
import type { MaintenanceJobsAnswer } from '../src/shared/api/maintenance.js';
import type { MaintenanceJob } from '../src/daemon/domains/maintenance/job.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

const TOKEN = 'settings-internal-token-0123456789-abcdef';
let daemon: TestDaemon;
let clockNow = new Date('2026-11-27T10:00:00.000Z');

/** Jobs after the daemon's own: one that fails with a plain error, one that answers a count. */
const testJobs = (): MaintenanceJob[] => [
  {
    name: 'test.fails',
    run: async () => {
      throw new Error('boom');
    },
  },
  { name: 'test.counts', run: async () => ({ deleted: 3 }) },
];

beforeAll(async () => {
  daemon = await startTestDaemon(
    {
      SERVICE_AUTH_DISABLED: 'true',
      SERVICE_INTERNAL_API_TOKEN: TOKEN,
      SERVICE_MAINTENANCE_TIMER_ENABLED: 'false',
      SERVICE_MAINTENANCE_INTERVAL_SECONDS: '17',
      SERVICE_MAINTENANCE_HISTORY_DAYS: '3',
      SERVICE_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8, ::1',
    },
    { maintenance: { jobs: testJobs, clock: () => clockNow } },
  );
});
afterAll(() => daemon?.close());

const get = (path: string) => fetch(`${daemon.url}${path}`);
const tick = () => fetch(`${daemon.url}/internal/maintenance/tick`, { method: 'POST', headers: { 'x-internal-token': TOKEN } });

describe('GET /settings/maintenance/jobs', () => {
  it('lists every registered job before any ran, in the pass order, with the timer', async () => {
    const response = await get('/settings/maintenance/jobs');
    expect(response.status).toBe(200);
    const answer = (await response.json()) as MaintenanceJobsAnswer;
    expect(answer.timer).toEqual({ enabled: false, interval_seconds: 17 });
    expect(answer.history_days).toBe(3);
    const names = answer.jobs.map((job) => job.name);
    expect(names).toContain('runs.reap_expired_leases');
    expect(names.indexOf('test.fails')).toBeLessThan(names.indexOf('test.counts'));
    expect(names.at(-1)).toBe('maintenance_job_runs.retention');
    expect(answer.jobs.find((job) => job.name === 'test.counts')).toEqual({
      name: 'test.counts',
      registered: true,
      runs: 0,
      failures: 0,
      last_run: null,
      last_succeeded_at: null,
    });
  });

  it('shows each job last run, its failures and its last success after two passes', async () => {
    expect((await tick()).status).toBe(200);
    clockNow = new Date('2026-11-27T10:05:00.000Z');
    expect((await tick()).status).toBe(200);
    const answer = (await (await get('/settings/maintenance/jobs')).json()) as MaintenanceJobsAnswer;
    const counts = answer.jobs.find((job) => job.name === 'test.counts')!;
    expect(counts).toMatchObject({ runs: 2, failures: 0, last_succeeded_at: '2026-11-27T10:05:00.000Z' });
    expect(counts.last_run).toMatchObject({
      outcome: 'ok',
      trigger: 'tick',
      started_at: '2026-11-27T10:05:00.000Z',
      summary: { deleted: 3 },
    });
    const fails = answer.jobs.find((job) => job.name === 'test.fails')!;
    expect(fails).toMatchObject({ runs: 2, failures: 2, last_succeeded_at: null });
    expect(fails.last_run).toMatchObject({ outcome: 'failed', summary: null, error: { code: 'internal_error' } });
  });

  it('keeps showing a recorded job that is no longer registered', async () => {
    await daemon.services.db.knex('maintenance_jobs').insert({
      name: 'retired.job',
      last_run_id: '00000000-0000-4000-8000-000000000001',
      last_trigger: 'timer',
      last_instance: 'elsewhere',
      last_started_at: new Date('2026-11-01T00:00:00.000Z'),
      last_finished_at: new Date('2026-11-01T00:00:01.000Z'),
      last_duration_ms: 1000,
      last_outcome: 'ok',
      last_succeeded_at: new Date('2026-11-01T00:00:01.000Z'),
      runs: 5,
      failures: 1,
    });
    const answer = (await (await get('/settings/maintenance/jobs')).json()) as MaintenanceJobsAnswer;
    expect(answer.jobs.at(-1)).toMatchObject({ name: 'retired.job', registered: false, runs: 5, failures: 1 });
  });
});

describe('GET /settings/environment-variables', () => {
  it('lists every setting with its effective value and default, secrets masked', async () => {
    const response = await get('/settings/environment-variables');
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).not.toContain(TOKEN);
    const { items } = JSON.parse(text) as EnvironmentVariablesAnswer;
    const byName = new Map(items.map((item) => [item.name, item]));
    expect(byName.get('SERVICE_PORT')).toMatchObject({ value: '0', default: '8080', is_default: false, secret: false });
    expect(byName.get('SERVICE_HOST')).toMatchObject({ value: '127.0.0.1', is_default: true });
    expect(byName.get('SERVICE_MAINTENANCE_INTERVAL_SECONDS')).toMatchObject({ value: '17', default: null, is_default: false });
    expect(byName.get('SERVICE_OUTBOUND_ALLOWED_NETWORKS')).toMatchObject({ value: '127.0.0.0/8,::1', default: '', is_default: false });
    expect(byName.get('SERVICE_INTERNAL_API_TOKEN')).toMatchObject({ value: '********', default: null, secret: true });
    expect(byName.get('IDP_CLIENT_SECRET')).toMatchObject({ value: null, secret: true });
    expect(items.every((item) => item.description.length > 0)).toBe(true);
  });
});
