import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, ok, runSvc, type SvcRun } from './helpers/cli.js';
import { DEFINITION, seedDevice } from './helpers/runs-fixtures.js';
import { runsOfSchedule, startScheduleWorld, type ScheduleWorld } from './helpers/schedules-fixtures.js';
import { BARE, count, seedFlow } from './helpers/webhooks-fixtures.js';

/**
 * `svc schedules` as built (a subprocess, no terminal) against a real daemon whose clock the test holds,
 * in acme: dave (operator) manages, carol (viewer) reads and meets the refusals.
 */
let w: ScheduleWorld;
let configHome: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  w = await startScheduleWorld({}, '2026-06-01T08:00:00Z');
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-schedules-'));
  ids.deploy = await seedFlow(w.knex(), w.ids.acme!, { name: 'deploy', versions: [DEFINITION] });
  ids.bare = await seedFlow(w.knex(), w.ids.acme!, { name: 'bare', versions: [BARE] });
  ids.r1 = await seedDevice(w.knex(), w.ids.acme!, 'r1');
});
afterAll(async () => {
  await w?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

function svc(who: string, args: string[]): Promise<SvcRun> {
  return runSvc(['--server', w.url, '--org', 'acme', ...args], { configHome, env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') } });
}

describe('svc schedules next', () => {
  it('prints the next five fire times in the zone, one a line, and the description on stderr', async () => {
    const result = await ok(svc('carol', ['schedules', 'next', '30 2 * * *', '--tz', 'Europe/Berlin']));
    expect(result.stdout.trim().split('\n')).toEqual([
      '2026-06-02T02:30:00+02:00',
      '2026-06-03T02:30:00+02:00',
      '2026-06-04T02:30:00+02:00',
      '2026-06-05T02:30:00+02:00',
      '2026-06-06T02:30:00+02:00',
    ]);
    expect(result.stderr).toContain('Europe/Berlin');
    const answer = await json(svc('carol', ['schedules', 'next', '@hourly', '--json']));
    expect(answer).toMatchObject({ valid: true, timezone: 'UTC' });
  });

  it('exits 1 with the code on stderr for an invalid field or zone, nothing on stdout', async () => {
    const bad = await svc('carol', ['schedules', 'next', '0 25 * * *']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toContain('code: invalid_cron');
    expect(bad.stderr).toContain('hour');
    const zone = await svc('carol', ['schedules', 'next', '* * * * *', '--tz', 'Moon/Base']);
    expect(zone.code).toBe(1);
    expect(zone.stderr).toContain('code: unknown_timezone');
  });
});

describe('svc schedules create, list, get, update, pause, resume, run, delete', () => {
  it('manages a schedule end to end, by name', async () => {
    const created = await ok(
      svc('dave', [
        'schedules',
        'create',
        '--name',
        'nightly',
        '--flow',
        'deploy',
        '--cron',
        '0 3 * * *',
        '--tz',
        'UTC',
        '--param',
        'change_id=CHG9',
        '--target',
        `routers=${ids.r1}`,
      ]),
    );
    const id = created.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.stderr).toContain('next fire 2026-06-02T03:00:00.000Z');

    const list = await ok(svc('carol', ['schedules', 'list']));
    expect(list.stdout).toMatch(/nightly\s+yes\s+0 3 \* \* \*\s+UTC\s+deploy/);
    const page = await json(svc('carol', ['schedules', 'list', '--flow', 'deploy', '--json']));
    expect(page.items.map((s: { id: string }) => s.id)).toEqual([id]);

    const got = await json(svc('carol', ['schedules', 'get', 'nightly', '--json']));
    expect(got).toMatchObject({ id, params: { change_id: 'CHG9' }, targets: { routers: [ids.r1] } });
    expect((await ok(svc('carol', ['schedules', 'get', id]))).stdout).toMatch(/cron:\s+0 3 \* \* \* \(At 03:00\)/);

    // Devices by name as well as by id.
    const updated = await json(svc('dave', ['schedules', 'update', 'nightly', '--cron', '0 4 * * *', '--target', 'routers=r1', '--json']));
    expect(updated.next_fire_at).toBe('2026-06-02T04:00:00.000Z');
    expect(updated.targets).toEqual({ routers: [ids.r1] });

    const paused = await json(svc('dave', ['schedules', 'pause', id, '--json']));
    expect(paused).toMatchObject({ enabled: false, next_fire_at: null });
    expect((await json(svc('carol', ['schedules', 'list', '--paused', '--json']))).items.map((s: { id: string }) => s.id)).toEqual([id]);
    const resumed = await ok(svc('dave', ['schedules', 'resume', 'nightly']));
    expect(resumed.stderr).toContain('Resumed schedule nightly');

    const run = await ok(svc('dave', ['schedules', 'run', 'nightly']));
    const runId = run.stdout.trim();
    expect((await runsOfSchedule(w, id)).map((r) => [r.id, r.trigger_source])).toEqual([[runId, 'schedule']]);

    const refused = await svc('dave', ['schedules', 'delete', 'nightly']);
    expect(refused.code).toBe(2);
    expect(await json(svc('dave', ['schedules', 'delete', 'nightly', '--yes', '--json']))).toEqual({ id, deleted: true });
    expect(await count(w.knex()('schedules').where({ id }).whereNotNull('deleted_at'))).toBe(1);
    const gone = await svc('carol', ['schedules', 'get', 'nightly']);
    expect(gone.code).toBe(3);
  });

  it('refuses bad input with the daemon code, a viewer with exit 5, a missing flag with exit 2; nothing stored', async () => {
    const before = await count(w.knex()('schedules'));
    const badParams = await svc('dave', [
      'schedules',
      'create',
      '--name',
      'x',
      '--flow',
      'deploy',
      '--cron',
      '0 3 * * *',
      '--param',
      'change_id=nope',
    ]);
    expect(badParams.code).toBe(1);
    expect(badParams.stderr).toContain('code: validation_failed');
    const viewer = await svc('carol', ['schedules', 'create', '--name', 'x', '--flow', 'bare', '--cron', '0 3 * * *']);
    expect(viewer.code).toBe(5);
    expect(viewer.stderr).toContain('code: forbidden');
    const missing = await svc('dave', ['schedules', 'create', '--name', 'x', '--flow', 'bare']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--cron');
    const nothing = await svc('dave', ['schedules', 'update', ids.bare!]);
    expect(nothing.code).toBe(2);
    // Only enabled and only paused at once is no filter at all: a usage error, not a page of one of them.
    const both = await svc('carol', ['schedules', 'list', '--enabled', '--paused']);
    expect(both.code).toBe(2);
    expect(both.stdout).toBe('');
    expect(await count(w.knex()('schedules'))).toBe(before);
  });
});
