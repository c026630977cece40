import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { ok, runSvc, type SvcRun } from './helpers/cli.js';
import { BARE, seedDevice, seedFlow, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

/**
 * `svc runs start|list|get|cancel|pause|resume` as built (a subprocess, no terminal) against a real
 * daemon, in acme: alice (admin) and dave (operator) start runs, carol (viewer) reads and is refused
 * the rest, root (platform admin) may force. Following a run (`--wait`, `watch`) is cli-runs-follow.test.ts.
 */
let w: World;
let configHome: string;
const ids: Record<string, string> = {};

const TYPED: FlowDefinition = {
  steps: [],
  edges: [],
  inputs: [
    { name: 'count', type: 'integer' },
    { name: 'enabled', type: 'boolean' },
    { name: 'label', type: 'string' },
    { name: 'meta', type: 'json' },
  ],
  target_roles: [{ name: 'routers' }],
};

beforeAll(async () => {
  w = await startWorld();
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-runs-'));
  const db = w.knex();
  ids.typed = await seedFlow(db, w.ids.acme!, { name: 'typed', versions: [TYPED, TYPED] });
  ids.bare = await seedFlow(db, w.ids.acme!, { name: 'bare', versions: [BARE] });
  ids.locked = await seedFlow(db, w.ids.acme!, { name: 'locked', versions: [BARE], manualRuns: false });
  ids.twinMine = await seedFlow(db, w.ids.acme!, { name: 'twin', versions: [BARE] });
  ids.twinShared = await seedFlow(db, w.ids.commons!, { name: 'twin', versions: [BARE] });
  ids.r1 = await seedDevice(db, w.ids.acme!, 'r1');
  ids.r2 = await seedDevice(db, w.ids.acme!, 'r2');
});
afterAll(async () => {
  await w?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

/** `svc --server … --org acme <args>` as `who`, whose bearer travels in SVC_TOKEN. */
function svc(who: string, args: string[]): Promise<SvcRun> {
  return runSvc(['--server', w.url, '--org', 'acme', ...args], { configHome, env: { SVC_TOKEN: w.as[who]!.replace(/^Bearer /, '') } });
}

const json = async <T = Record<string, unknown>>(run: Promise<SvcRun>): Promise<T> => JSON.parse((await ok(run)).stdout) as T;
const runRow = (id: string) => w.knex()('runs').where({ id }).first();
const runCount = () =>
  w
    .knex()('runs')
    .count<{ count: string }[]>({ count: '*' })
    .then(([r]) => Number(r!.count));

/** A refusal: the exit code, nothing on stdout, the problem code and a request id on stderr. */
function expectRefused(result: SvcRun, exit: number, code: string): void {
  expect(result.code, result.stderr).toBe(exit);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain(`code: ${code}`);
  expect(result.stderr).toMatch(/request id: \S+/);
}

describe('svc runs start', () => {
  it('starts a flow by id: the run id alone on stdout, a sentence on stderr, the row queued', async () => {
    const started = await ok(svc('dave', ['runs', 'start', ids.bare!]));
    const id = started.stdout.trim();
    expect(started.stdout).toBe(`${id}\n`);
    expect(started.stderr).toContain(`Started run bare (${id}) of flow bare version 1: queued.`);
    expect(await runRow(id)).toMatchObject({ flow_id: ids.bare, status: 'queued', trigger_source: 'manual', created_by: 'sub-dave' });
  });

  it('starts a flow by name with a version, a name, params typed as JSON when they parse, and targets; --json prints the run', async () => {
    const file = join(configHome, 'params.json');
    await writeFile(file, JSON.stringify({ label: 'from-file', meta: { keep: true }, count: 1 }));
    const run = await json(
      svc('dave', [
        'runs',
        'start',
        'typed',
        '--flow-version',
        '1',
        '--name',
        'nightly',
        '--params-json',
        `@${file}`,
        '--param',
        'count=5',
        '--param',
        'enabled=true',
        '--param',
        'meta={"a":[1,2]}',
        '--target',
        `routers=${ids.r1},${ids.r2}`,
        '--json',
      ]),
    );
    expect(run).toMatchObject({
      flow_id: ids.typed,
      flow_version: 1,
      name: 'nightly',
      status: 'queued',
      params: { count: 5, enabled: true, label: 'from-file', meta: { a: [1, 2] } },
      targets: { routers: [ids.r1, ids.r2] },
    });
    expect(await runRow(run.id as string)).toMatchObject({ name: 'nightly', flow_version: 1 });

    // A value that is not JSON is a string; a JSON string stays a string ("5", not 5).
    const strings = await json(svc('dave', ['runs', 'start', 'typed', '--param', 'label=hello world', '--param', 'meta="5"', '--json']));
    expect(strings.params).toEqual({ label: 'hello world', meta: '5' });
    expect(strings.flow_version).toBe(2);
  });

  it('is refused by the daemon with its exit code and code, writing nothing: types never coerced, unknown version, switch off, force, viewer', async () => {
    const before = await runCount();
    expectRefused(await svc('dave', ['runs', 'start', 'typed', '--param', 'count="5"']), 1, 'validation_failed');
    expectRefused(await svc('dave', ['runs', 'start', 'typed', '--flow-version', '9']), 3, 'flow_version_not_found');
    expectRefused(await svc('dave', ['runs', 'start', 'locked']), 1, 'manual_runs_disabled');
    expectRefused(await svc('dave', ['runs', 'start', 'locked', '--force']), 5, 'restricted_option');
    expectRefused(await svc('carol', ['runs', 'start', 'bare']), 5, 'forbidden');
    expectRefused(await svc('dave', ['runs', 'start', UNKNOWN_ID]), 3, 'flow_not_found');
    expect(await runCount()).toBe(before);
    // A platform admin may force a flow whose manual runs are off.
    const forced = await json(svc('root', ['runs', 'start', 'locked', '--force', '--json']));
    expect(forced.status).toBe('queued');
  });

  it('refuses an unknown flow name (exit 3) and a name two flows share (exit 2, naming both ids)', async () => {
    const before = await runCount();
    const unknown = await svc('dave', ['runs', 'start', 'no-such-flow']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('no-such-flow');
    const twin = await svc('dave', ['runs', 'start', 'twin']);
    expect(twin.code).toBe(2);
    expect(twin.stderr).toContain(ids.twinMine);
    expect(twin.stderr).toContain(`${ids.twinShared} (shared)`);
    // By id, either runs.
    await ok(svc('dave', ['runs', 'start', ids.twinShared!]));
    expect(await runCount()).toBe(before + 1);
  });

  it('takes --target devices by name as well as by id; an unknown name exits 3 and a name two devices share exits 2', async () => {
    const run = await json(svc('dave', ['runs', 'start', 'typed', '--target', `routers=r2,${ids.r1}`, '--json']));
    expect(run.targets).toEqual({ routers: [ids.r2, ids.r1] });
    const before = await runCount();
    const unknown = await svc('dave', ['runs', 'start', 'typed', '--target', 'routers=r9']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('r9');
    const sharedTwin = await seedDevice(w.knex(), w.ids.commons!, 'r1');
    const twin = await svc('dave', ['runs', 'start', 'typed', '--target', 'routers=r1']);
    expect(twin.code).toBe(2);
    expect(twin.stderr).toContain(`${sharedTwin} (shared)`);
    expect(await runCount()).toBe(before);
    await w.knex()('devices').where({ id: sharedTwin }).delete();
  });

  it('refuses bad usage with exit 2 before sending anything', async () => {
    const before = await runCount();
    for (const args of [
      [],
      ['bare', '--param', 'novalue'],
      ['bare', '--param', '=1'],
      ['bare', '--params-json', '[1]'],
      ['bare', '--params-json', '{nope'],
      ['bare', '--params-json', `@${join(configHome, 'missing.json')}`],
      ['bare', '--target', 'routers'],
      ['bare', '--target', 'routers='],
      ['bare', '--flow-version', 'x'],
      ['bare', '--flow-version', '0'],
      ['bare', '--no-such-flag'],
    ]) {
      const run = await svc('dave', ['runs', 'start', ...args]);
      expect(run.code, `${args.join(' ')}: ${run.stderr}`).toBe(2);
      expect(run.stdout).toBe('');
    }
    expect(await runCount()).toBe(before);
  });
});

describe('svc runs list, get', () => {
  it('lists runs newest first as a table and as the daemon page, filtered by status, flow (id or name) and limit', async () => {
    const a = (await ok(svc('dave', ['runs', 'start', 'bare', '--name', 'list-a']))).stdout.trim();
    const b = (await ok(svc('dave', ['runs', 'start', 'bare', '--name', 'list-b']))).stdout.trim();
    await ok(svc('dave', ['runs', 'cancel', a]));

    const table = await ok(svc('carol', ['runs', 'list']));
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+NAME\s+FLOW\s+VERSION\s+STATUS\s+TRIGGER\s+CREATED\s+FINISHED$/);
    expect(lines.find((l) => l.startsWith(b))).toMatch(/\slist-b\s+bare\s+1\s+queued\s+manual\s+\S+\s+-$/);
    expect(lines.findIndex((l) => l.startsWith(b))).toBeLessThan(lines.findIndex((l) => l.startsWith(a)));

    const page = await json<{ items: { id: string; status: string }[]; total: number; limit: number; offset: number }>(
      svc('carol', ['runs', 'list', '--json']),
    );
    expect(page).toMatchObject({ limit: 50, offset: 0 });
    expect(page.total).toBe(await runCount());
    expect(page.items.map((r) => r.id)).toEqual(expect.arrayContaining([a, b]));

    const cancelled = await json<{ items: { id: string; status: string }[] }>(
      svc('carol', ['runs', 'list', '--status', 'cancelled', '--flow', 'bare', '--json']),
    );
    expect(cancelled.items.map((r) => r.id)).toContain(a);
    expect(cancelled.items.every((r) => r.status === 'cancelled')).toBe(true);
    const byId = await json<{ items: { flow_id: string }[] }>(svc('carol', ['runs', 'list', '--flow', ids.typed!, '--json']));
    expect(byId.items.length).toBeGreaterThan(0);
    expect(byId.items.every((r) => r.flow_id === ids.typed)).toBe(true);
    const limited = await json<{ items: unknown[]; limit: number }>(svc('carol', ['runs', 'list', '--limit', '1', '--json']));
    expect(limited).toMatchObject({ limit: 1 });
    expect(limited.items).toHaveLength(1);

    expectRefused(await svc('carol', ['runs', 'list', '--status', 'sleeping']), 1, 'validation_failed');
    expect((await svc('carol', ['runs', 'list', '--limit', 'many'])).code).toBe(2);
  });

  it('gets one run as field lines and as the daemon run; an unknown id is exit 3', async () => {
    const id = (await ok(svc('dave', ['runs', 'start', 'typed', '--param', 'count=3', '--name', 'one']))).stdout.trim();
    const plain = await ok(svc('carol', ['runs', 'get', id]));
    expect(plain.stdout).toMatch(new RegExp(`^id:\\s+${id}$`, 'm'));
    expect(plain.stdout).toMatch(/^status:\s+queued$/m);
    expect(plain.stdout).toMatch(/^params:\s+\{"count":3\}$/m);
    const run = await json(svc('carol', ['runs', 'get', id, '--json']));
    expect(run).toMatchObject({ id, name: 'one', status: 'queued', params: { count: 3 } });
    expect(plain.stdout).not.toMatch(/^(error|outputs):/m);
    expectRefused(await svc('carol', ['runs', 'get', UNKNOWN_ID]), 3, 'resource_not_found');
    expect((await svc('carol', ['runs', 'get'])).code).toBe(2);

    // A failed run says why, and what it produced.
    const error = { code: 'step_failed', step_id: 'push', message: 'the router said no' };
    await w
      .knex()('runs')
      .where({ id })
      .update({
        status: 'failed',
        finished_at: w.knex().fn.now(),
        error_json: JSON.stringify(error),
        outputs_json: JSON.stringify({ pushed: 2 }),
      });
    const failed = await ok(svc('carol', ['runs', 'get', id]));
    expect(failed.stdout).toMatch(/^error:\s+\{.*"code":"step_failed".*"step_id":"push".*\}$/m);
    expect(failed.stdout).toMatch(/^outputs:\s+\{"pushed":2\}$/m);
  });
});

describe('svc runs monitors', () => {
  it("lists a run's monitors and one monitor's samples, as tables and as the daemon's bodies; an unknown run is exit 3", async () => {
    const id = (await ok(svc('dave', ['runs', 'start', 'bare']))).stdout.trim();
    const last = { seq: 2, ts: '2026-11-27T10:00:02.000Z', value: 4.5, status: 'ok', data: {} };
    const [monitor] = await w
      .knex()('monitors')
      .insert({
        run_id: id,
        org_id: w.ids.acme,
        monitor_key: 'ping.r1',
        name: 'tcp_connect r1',
        kind: 'connectivity.tcp_connect',
        target: '192.0.2.1',
        unit: 'ms',
        sample_count: 2,
        last_seq: 2,
        last_sample: JSON.stringify(last),
      })
      .returning('id');
    await w
      .knex()('monitor_samples')
      .insert([
        { monitor_id: monitor.id, run_id: id, seq: 1, stream_seq: 1, ts: '2026-11-27T10:00:01Z', value: 3.25, status: 'ok' },
        { monitor_id: monitor.id, run_id: id, seq: 2, stream_seq: 2, ts: '2026-11-27T10:00:02Z', value: 4.5, status: 'ok' },
      ]);

    const table = await ok(svc('carol', ['runs', 'monitors', id]));
    expect(table.stdout).toMatch(/^ID\s+NAME\s+TARGET\s+STATUS\s+SAMPLES\s+LAST$/m);
    expect(table.stdout).toContain('192.0.2.1');
    expect(table.stdout).toContain('4.5 ms');
    const listed = await json<{ items: { id: string; sample_count: number }[] }>(svc('carol', ['runs', 'monitors', id, '--json']));
    expect(listed.items).toEqual([expect.objectContaining({ id: monitor.id, sample_count: 2 })]);

    const samples = await ok(svc('carol', ['runs', 'monitors', id, '--samples', monitor.id]));
    expect(samples.stdout.trimEnd().split('\n')).toHaveLength(3);
    const page = await json<{ items: { seq: number; value: number }[] }>(
      svc('carol', ['runs', 'monitors', id, '--samples', monitor.id, '--json']),
    );
    expect(page.items.map((s) => [s.seq, s.value])).toEqual([
      [1, 3.25],
      [2, 4.5],
    ]);
    expectRefused(await svc('carol', ['runs', 'monitors', UNKNOWN_ID]), 3, 'resource_not_found');
  });
});

describe('svc runs cancel, pause, resume', () => {
  it('moves the run and says so; --json prints it; a move its state forbids is exit 1 invalid_run_state; a viewer exit 5', async () => {
    const id = (await ok(svc('dave', ['runs', 'start', 'bare']))).stdout.trim();
    const paused = await ok(svc('dave', ['runs', 'pause', id]));
    expect(paused.stdout).toBe('');
    expect(paused.stderr).toContain(`Paused run ${id}: paused.`);
    expect(await json(svc('dave', ['runs', 'resume', id, '--json']))).toMatchObject({ id, status: 'queued' });
    expectRefused(await svc('carol', ['runs', 'cancel', id]), 5, 'forbidden');
    expect(await json(svc('dave', ['runs', 'cancel', id, '--json']))).toMatchObject({ id, status: 'cancelled', cancelled_by: 'sub-dave' });
    expect(await runRow(id)).toMatchObject({ status: 'cancelled' });
    expectRefused(await svc('dave', ['runs', 'cancel', id]), 1, 'invalid_run_state');
    expectRefused(await svc('dave', ['runs', 'resume', UNKNOWN_ID]), 3, 'resource_not_found');
  });
});
