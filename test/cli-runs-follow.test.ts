import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendDaemonEvent } from '../src/daemon/domains/runs/run-event-log.js';
import { runSvc, SVC_BIN, type SvcRun } from './helpers/cli.js';
import { REPO_ROOT } from './helpers/spawn.js';
import { TcpProxy } from './helpers/tcp-proxy.js';
import { BARE, seedFlow, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

/**
 * Following a run to its end with the CLI as built: `svc runs start --wait` and `svc runs watch`
 * without a terminal, over the daemon's live stream. The run progresses as a worker would make it,
 * written in SQL (its status, and its events through the daemon's own append, which tells the stream).
 * A dropped connection is a TCP proxy ending every connection once; that a server sending an event
 * again shows it once is the stream client's own test (cli-runs-stream.test.ts).
 */
let w: World;
let proxy: TcpProxy;
let configHome: string;
let flowId: string;

beforeAll(async () => {
  w = await startWorld({ SERVICE_STREAM_KEEPALIVE_SECONDS: '1', SERVICE_STREAM_POLL_SECONDS: '1' });
  proxy = new TcpProxy({ host: '127.0.0.1', port: Number(new URL(w.url).port) });
  await proxy.start();
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-runs-follow-'));
  flowId = await seedFlow(w.knex(), w.ids.acme!, { name: 'deploy', versions: [BARE] });
});
afterAll(async () => {
  await proxy?.stop();
  await w?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

function svc(args: string[], server = w.url): Promise<SvcRun> {
  return runSvc(['--server', server, '--org', 'acme', ...args], { configHome, env: { SVC_TOKEN: w.as.dave!.replace(/^Bearer /, '') } });
}

/** `svc` running in the background, its stderr readable as it comes. */
function background(args: string[], server = w.url) {
  const child = spawn(process.execPath, [SVC_BIN, '--server', server, '--org', 'acme', ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: configHome, XDG_CONFIG_HOME: configHome, SVC_TOKEN: w.as.dave!.replace(/^Bearer /, '') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<SvcRun>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return {
    child,
    done,
    /** Waits until stderr holds `text`. */
    async saw(text: string): Promise<void> {
      for (let i = 0; i < 800 && !stderr.includes(text); i++) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(stderr).toContain(text);
    },
  };
}

/** Waits for the run named `name` to exist (started by a CLI running meanwhile); answers its id. */
async function runNamed(name: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const row = await w.knex()('runs').where({ name }).first('id');
    if (row !== undefined) return row.id as string;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no run named ${name}`);
}

/** A run made through the API (no CLI), for `watch`. */
async function queuedRun(name: string): Promise<string> {
  const [row] = await w
    .knex()('runs')
    .insert({
      org_id: w.ids.acme,
      name,
      flow_id: flowId,
      flow_name: 'deploy',
      flow_version: 1,
      status: 'queued',
      params_json: '{}',
      targets_json: '{}',
      trigger_source: 'manual',
      workflow_id: `run-${name}`,
    })
    .returning('id');
  return (row as { id: string }).id;
}

/** What a worker does to a run, in SQL: claims it, runs one step that logs, and ends it `final`. */
async function progress(runId: string, final: 'succeeded' | 'failed' | 'cancelled'): Promise<void> {
  await start(runId);
  await finish(runId, final);
}

const STEP = { step_run_id: '5d0c6a51-0d6b-4f43-9f57-6c5b8f0e2a11', step_id: 'push', handler: 'general.noop' };

/** Events 1-3: the run claimed, its step running, a log line. */
async function start(runId: string): Promise<void> {
  const db = w.knex();
  await db.transaction(async (trx) => {
    await trx('runs').where({ id: runId }).update({ status: 'running', started_at: trx.fn.now(), attempt: 1 });
    await appendDaemonEvent(trx, runId, { type: 'run.status', data: { from: 'queued', to: 'running', attempt: 1 } });
  });
  await db.transaction(async (trx) => {
    await appendDaemonEvent(trx, runId, { type: 'step.status', stepId: 'push', data: { ...STEP, from: null, to: 'running' } });
    await appendDaemonEvent(trx, runId, { type: 'log', stepId: 'push', data: { level: 'info', message: 'pushed config' } });
  });
}

/** Events 4-5: the step and the run end. */
async function finish(runId: string, final: 'succeeded' | 'failed' | 'cancelled'): Promise<void> {
  await w.knex().transaction(async (trx) => {
    await appendDaemonEvent(trx, runId, {
      type: 'step.status',
      stepId: 'push',
      data: { ...STEP, from: 'running', to: final === 'succeeded' ? 'succeeded' : 'failed' },
    });
    await trx('runs').where({ id: runId }).update({ status: final, finished_at: trx.fn.now() });
    await appendDaemonEvent(trx, runId, { type: 'run.status', data: { from: 'running', to: final } });
  });
}

describe('svc runs start --wait', () => {
  it('follows the run to succeeded: the id on stdout, each event once on stderr in order, exit 0', async () => {
    const cli = svc(['runs', 'start', 'deploy', '--name', 'wait-ok', '--wait']);
    const id = await runNamed('wait-ok');
    await progress(id, 'succeeded');
    const result = await cli;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${id}\n`);
    const lines = result.stderr.split('\n').filter((l) => l.startsWith('#'));
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^#1 \d{2}:\d{2}:\d{2} run queued -> running$/);
    expect(lines[1]).toMatch(/^#2 .* step push \(general\.noop\) - -> running$/);
    expect(lines[2]).toMatch(/^#3 .* push: \[info\] pushed config$/);
    expect(lines[4]).toMatch(/^#5 .* run running -> succeeded$/);
    expect(result.stderr).toContain(`Run ${id} succeeded.`);
  });

  it('exits 7 when the run fails and 8 when it is cancelled; --json prints the run as it ended', async () => {
    const failing = svc(['runs', 'start', 'deploy', '--name', 'wait-fail', '--wait', '--json']);
    const failedId = await runNamed('wait-fail');
    await progress(failedId, 'failed');
    const failed = await failing;
    expect(failed.code, failed.stderr).toBe(7);
    expect(JSON.parse(failed.stdout)).toMatchObject({ id: failedId, status: 'failed' });
    expect(failed.stderr).toContain(`run ${failedId} failed`);

    const cancelling = svc(['runs', 'start', 'deploy', '--name', 'wait-cancel', '--wait']);
    const cancelledId = await runNamed('wait-cancel');
    const cancel = await svc(['runs', 'cancel', cancelledId]);
    expect(cancel.code, cancel.stderr).toBe(0);
    const cancelled = await cancelling;
    expect(cancelled.code, cancelled.stderr).toBe(8);
    expect(cancelled.stdout).toBe(`${cancelledId}\n`);
  });

  it('waits through an approval, saying so once on stderr with the event lines', async () => {
    const cli = background(['runs', 'start', 'deploy', '--name', 'wait-approval', '--wait']);
    const id = await runNamed('wait-approval');
    await start(id);
    await w.knex().transaction((trx) =>
      appendDaemonEvent(trx, id, {
        type: 'run.status',
        data: { from: 'running', to: 'awaiting_approval', reason: 'approval_requested', approval_id: 'ap-9', step_id: 'gate' },
      }),
    );
    await cli.saw(
      `Run ${id} is awaiting approval at step gate (svc approvals get ap-9; svc approvals approve|reject ap-9); still waiting.`,
    );
    await finish(id, 'failed');
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(7);
    expect(result.stdout).toBe(`${id}\n`);
    expect(result.stderr.split('is awaiting approval')).toHaveLength(2);
  });

  it('reconnects after a dropped stream from its last event, showing each event once', async () => {
    const cli = background(['runs', 'start', 'deploy', '--name', 'wait-drop', '--wait'], `http://127.0.0.1:${proxy.port}`);
    const id = await runNamed('wait-drop');
    await start(id);
    await cli.saw('#3 ');
    // Every connection ends at once (the proxy answers new ones likewise until healed).
    proxy.reset('fin');
    await cli.saw('reconnecting after event 3');
    proxy.heal();
    await finish(id, 'succeeded');
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(0);
    const seqs = result.stderr
      .split('\n')
      .filter((l) => l.startsWith('#'))
      .map((l) => Number(/^#(\d+)/.exec(l)![1]));
    expect(seqs).toEqual([1, 2, 3, 4, 5]);
  });

  it('Ctrl-C stops following (exit 130) and leaves the run as it was, saying how to find it again', async () => {
    const cli = background(['runs', 'start', 'deploy', '--name', 'wait-int', '--wait']);
    const id = await runNamed('wait-int');
    await start(id);
    // Following: the first event is shown; now interrupt.
    await cli.saw('#1 ');
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.code).toBe(130);
    expect(result.stderr).toContain(`Stopped following run ${id}; the run goes on`);
    expect(await w.knex()('runs').where({ id }).first()).toMatchObject({ status: 'running', cancelled_at: null });
  });
});

describe('svc runs watch without a terminal', () => {
  it('prints one line per event on stdout and exits as the run ended', async () => {
    const id = await queuedRun('watch-lines');
    const cli = svc(['runs', 'watch', id]);
    await progress(id, 'failed');
    const result = await cli;
    expect(result.code, result.stderr).toBe(7);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^#1 .* run queued -> running$/);
    expect(lines[4]).toMatch(/^#5 .* run running -> failed$/);
  });

  it('--json prints each event as the daemon sends it, one per line; a finished run is replayed whole', async () => {
    const id = await queuedRun('watch-json');
    await progress(id, 'succeeded');
    const result = await svc(['runs', 'watch', id, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const events = result.stdout
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(events[2]).toMatchObject({ type: 'log', step_id: 'push', attempt: 1, data: { level: 'info', message: 'pushed config' } });
    expect(Object.keys(events[0]!).sort()).toEqual(['attempt', 'data', 'seq', 'step_id', 'ts', 'type']);
  });

  it('replays a finished run that passed an approval without saying it is still waiting', async () => {
    const id = await queuedRun('watch-approved');
    await start(id);
    await w.knex().transaction(async (trx) => {
      await appendDaemonEvent(trx, id, {
        type: 'run.status',
        data: { from: 'running', to: 'awaiting_approval', reason: 'approval_requested', approval_id: 'ap-8', step_id: 'gate' },
      });
      await appendDaemonEvent(trx, id, { type: 'run.status', data: { from: 'awaiting_approval', to: 'queued', reason: 'approved' } });
    });
    await finish(id, 'succeeded');
    const result = await svc(['runs', 'watch', id]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/run running -> awaiting_approval \(approval_requested\)/);
    expect(result.stderr).not.toContain('is awaiting approval');
    expect(result.stderr).toContain(`Run ${id} succeeded.`);
  });

  it('keeps waiting while the run awaits approval, saying so on stderr, and exits as the run ends', async () => {
    const id = await queuedRun('watch-approval');
    const cli = background(['runs', 'watch', id]);
    await start(id);
    await w.knex().transaction((trx) =>
      appendDaemonEvent(trx, id, {
        type: 'run.status',
        data: { from: 'running', to: 'awaiting_approval', reason: 'approval_requested', approval_id: 'ap-7', step_id: 'gate' },
      }),
    );
    await cli.saw(
      `Run ${id} is awaiting approval at step gate (svc approvals get ap-7; svc approvals approve|reject ap-7); still waiting.`,
    );
    expect(cli.child.exitCode).toBeNull();
    await w
      .knex()
      .transaction((trx) =>
        appendDaemonEvent(trx, id, { type: 'run.status', data: { from: 'awaiting_approval', to: 'queued', reason: 'approved' } }),
      );
    await finish(id, 'succeeded');
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[3]).toMatch(/^#4 .* run running -> awaiting_approval \(approval_requested\)$/);
    expect(lines[4]).toMatch(/^#5 .* run awaiting_approval -> queued \(approved\)$/);
    expect(result.stdout).not.toContain('still waiting');
  });

  it('an unknown run is exit 3', async () => {
    const result = await svc(['runs', 'watch', UNKNOWN_ID]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('code: resource_not_found');
  });
});
