import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createElement } from 'react';
import { render } from 'ink-testing-library';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionRow, OverrideChange, PermsApi } from '../src/cli/commands/perms/api.js';
import { OVERRIDABLE_POLICIES } from '../src/cli/ui/policies.js';
import { PermsMatrix } from '../src/cli/ui/perms-matrix.js';
import { RunWatch } from '../src/cli/ui/run-watch.js';
import { createWatchStore, initialWatchState, TAIL_LINES } from '../src/cli/ui/run-watch-state.js';
import type { RunEvent } from '../src/shared/api/run-events.js';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { REPO_ROOT } from './helpers/spawn.js';

const KEY = { up: '\u001B[A', down: '\u001B[B', enter: '\r', escape: '\u001B', backspace: '\u007F' };

const action = (name: string, policy: string, overridable = true): ActionRow => ({
  action: name,
  default_policy: policy,
  override: null,
  effective_policy: policy,
  overridable,
  routes: 1,
  updated_by: null,
  updated_at: null,
});

/** The override API in memory, recording every change it is asked for. */
function fakeApi(rows: ActionRow[]) {
  const calls: { method: 'PUT' | 'DELETE'; action: string; policy?: string }[] = [];
  let state = rows;
  const change = (name: string, policy: string | null): OverrideChange => {
    const before = state.find((r) => r.action === name)!;
    state = state.map((r) =>
      r.action === name ? { ...r, override: policy, effective_policy: policy ?? r.default_policy, updated_by: 'root' } : r,
    );
    return { action: name, previous: before.override, policy };
  };
  const api: PermsApi = {
    actions: async () => state,
    setAction: async (name, policy) => (calls.push({ method: 'PUT', action: name, policy }), change(name, policy)),
    clearAction: async (name) => (calls.push({ method: 'DELETE', action: name }), change(name, null)),
  };
  return { api, calls };
}

const ROWS = [
  action('org:list', 'authenticated'),
  action('permission:manage', 'admin', false),
  action('run:create', 'operator'),
  action('run:view', 'viewer'),
];

async function until(frame: () => string | undefined, predicate: (text: string) => boolean, what: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const text = frame() ?? '';
    if (predicate(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}; last frame:\n${frame()}`);
}

/** Types one key and lets Ink render. */
async function press(stdin: { write(data: string): void }, ...keys: string[]): Promise<void> {
  for (const key of keys) {
    stdin.write(key);
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
}

describe('the interactive permission matrix (ink-testing-library, fake API)', () => {
  it('filters by typing, selects a row, picks a policy, confirms, and sends the PUT', async () => {
    const { api, calls } = fakeApi(ROWS);
    const view = render(createElement(PermsMatrix, { initial: ROWS, api, policies: OVERRIDABLE_POLICIES }));
    try {
      expect(view.lastFrame()).toContain('org:list');
      await press(view.stdin, 'run:'); // one chunk, as a paste or a fast typist sends it
      let frame = await until(view.lastFrame, (t) => t.includes('Filter: run:'), 'the filter');
      expect(frame).not.toContain('org:list');
      expect(frame).toMatch(/> run:create/);

      await press(view.stdin, KEY.down, KEY.enter);
      frame = await until(view.lastFrame, (t) => t.includes('Policy for run:view'), 'the policy picker');
      expect(frame).toMatch(/> viewer/); // the picker starts on the policy in effect
      const steps = OVERRIDABLE_POLICIES.indexOf('admin') - OVERRIDABLE_POLICIES.indexOf('viewer');
      // Keys that arrive together each act on the state the previous one left.
      await press(view.stdin, KEY.down.repeat(steps) + KEY.enter);
      await until(view.lastFrame, (t) => t.includes('Set run:view to admin (now viewer)? [y/n]'), 'the confirmation');
      expect(calls).toEqual([]);

      await press(view.stdin, 'y');
      frame = await until(view.lastFrame, (t) => t.includes('Set run:view to admin (was the default).'), 'the result');
      expect(calls).toEqual([{ method: 'PUT', action: 'run:view', policy: 'admin' }]);
      expect(frame).toMatch(/run:view\s+viewer\s+admin\s+admin/);
    } finally {
      view.unmount();
    }
  });

  it('cancels at the confirmation, refuses a pinned action, and clears an override', async () => {
    const rows = ROWS.map((r) => (r.action === 'run:create' ? { ...r, override: 'admin', effective_policy: 'admin' } : r));
    const { api, calls } = fakeApi(rows);
    const view = render(createElement(PermsMatrix, { initial: rows, api, policies: OVERRIDABLE_POLICIES }));
    try {
      await press(view.stdin, ...'perm'.split(''), KEY.enter);
      await until(view.lastFrame, (t) => t.includes('permission:manage is not overridable'), 'the refusal');

      await press(view.stdin, KEY.backspace, KEY.backspace, KEY.backspace, KEY.backspace, ...'run:c'.split(''), KEY.enter);
      await until(view.lastFrame, (t) => t.includes('(clear override)'), 'the picker with clear');
      await press(view.stdin, KEY.enter, 'n');
      await until(view.lastFrame, (t) => !t.includes('[y/n]') && !t.includes('Policy for'), 'back to the list');
      expect(calls).toEqual([]);

      // The picker starts on the policy in effect; "(clear override)" is first.
      await press(view.stdin, KEY.enter, ...Array<string>(OVERRIDABLE_POLICIES.indexOf('admin') + 1).fill(KEY.up), KEY.enter);
      await until(
        view.lastFrame,
        (t) => t.includes('Clear the override of run:create (back to operator)? [y/n]'),
        'the clear confirmation',
      );
      await press(view.stdin, 'y');
      await until(view.lastFrame, (t) => t.includes('Cleared the override of run:create (was admin).'), 'the clear result');
      expect(calls).toEqual([{ method: 'DELETE', action: 'run:create' }]);
    } finally {
      view.unmount();
    }
  });
});

const RUN = { id: '7c1f5d0e-2b7a-4c1e-9a55-0c3f6b7d8e91', name: 'nightly', flow_name: 'deploy', flow_version: 3, status: 'queued' };
let seq = 0;
const event = (type: string, data: Record<string, unknown>, step_id: string | null = null): RunEvent => ({
  seq: ++seq,
  ts: '2026-11-26T10:00:00.000Z',
  type,
  step_id,
  attempt: 1,
  data,
});
const stepStatus = (step: string, from: string | null, to: string) =>
  event('step.status', { step_run_id: `sr-${step}`, step_id: step, handler: 'general.noop', from, to }, step);

describe('the run watch view (ink-testing-library, a store fed by hand)', () => {
  it("shows the run's state, each step's latest state in first-seen order, the last events, a reconnection and the end", async () => {
    const store = createWatchStore(initialWatchState(RUN));
    const quits: string[] = [];
    const view = render(createElement(RunWatch, { store, keys: true, onQuit: (how) => quits.push(how) }));
    try {
      let frame = await until(view.lastFrame, (t) => t.includes('Run nightly'), 'the header');
      expect(frame).toContain(`(${RUN.id}) of deploy v3: queued`);
      expect(frame).toContain('No step has started.');
      expect(frame).toContain('q: stop watching');

      store.push({ kind: 'event', event: event('run.status', { from: 'queued', to: 'running' }) });
      store.push({ kind: 'event', event: stepStatus('fetch', null, 'running') });
      store.push({ kind: 'event', event: stepStatus('push', null, 'running') });
      store.push({ kind: 'event', event: stepStatus('fetch', 'running', 'succeeded') });
      store.push({ kind: 'event', event: event('log', { level: 'warn', message: 'slow device' }, 'push') });
      frame = await until(view.lastFrame, (t) => t.includes('slow device'), 'the log line');
      expect(frame).toContain(': running');
      expect(frame).toMatch(/succeeded\s+fetch \(general\.noop\)[\s\S]*running\s+push \(general\.noop\)/);
      expect(frame).toContain('push: [warn] slow device');

      store.push({ kind: 'reconnecting', text: 'stream lost (terminated); reconnecting after event 5' });
      await until(view.lastFrame, (t) => t.includes('reconnecting after event 5'), 'the notice');
      for (let i = 0; i < TAIL_LINES; i++) store.push({ kind: 'event', event: event('log', { level: 'info', message: `line ${i}` }) });
      frame = await until(view.lastFrame, (t) => t.includes(`line ${TAIL_LINES - 1}`), 'the tail');
      expect(frame).not.toContain('reconnecting after event 5');
      expect(frame).not.toContain('slow device');

      store.push({ kind: 'event', event: event('run.status', { from: 'running', to: 'failed' }) });
      store.push({ kind: 'end', status: 'failed' });
      frame = await until(view.lastFrame, (t) => t.includes('Run ended: failed'), 'the end');
      expect(frame).toContain(': failed');
      expect(frame).not.toContain('q: stop watching');

      await press(view.stdin, 'q');
      expect(quits).toEqual(['quit']);
    } finally {
      view.unmount();
    }
  });
});

describe('the run watch view of a run awaiting approval', () => {
  it('says what the run waits for and how to decide, until it moves on', async () => {
    const store = createWatchStore(initialWatchState(RUN));
    const view = render(createElement(RunWatch, { store, keys: false, onQuit: () => {} }));
    try {
      store.push({ kind: 'event', event: event('run.status', { from: 'queued', to: 'running' }) });
      store.push({
        kind: 'event',
        event: event('run.status', {
          from: 'running',
          to: 'awaiting_approval',
          reason: 'approval_requested',
          approval_id: 'ap-1',
          step_id: 'gate',
        }),
      });
      let frame = await until(view.lastFrame, (t) => t.includes('is awaiting approval'), 'the approval note');
      expect(frame).toContain(': awaiting_approval');
      expect(frame.replace(/\s+/g, ' ')).toContain(
        `Run ${RUN.id} is awaiting approval at step gate (svc approvals get ap-1; svc approvals approve|reject ap-1)`,
      );
      store.push({ kind: 'event', event: event('run.status', { from: 'awaiting_approval', to: 'queued', reason: 'approved' }) });
      frame = await until(view.lastFrame, (t) => t.includes(': queued'), 'the run requeued');
      expect(frame).not.toContain('is awaiting approval');
    } finally {
      view.unmount();
    }
  });
});

/**
 * Which modules a CLI run loads: a module-customization hook (registered with `--import` after tsx,
 * so it runs first and sees every final URL) appends each resolved URL to a file. ESM `import` and
 * `import()` of every module, CommonJS packages included, go through `resolve`, so ink (ESM) and react
 * (imported by ink, by our code, or by jsx-runtime) cannot load without a line in the file. The first
 * test is the control: it shows the tracer does see ink and react when they load.
 */
describe('ink and react stay off the paths that do not render', () => {
  let idp: DevIdp;
  let daemon: TestDaemon;
  let dir: string;
  let token: string;
  /** A stand-in for a run's read and its stream: one event, then the end. */
  let runServer: Server;
  let runServerUrl: string;

  beforeAll(async () => {
    idp = await startDevIdp();
    daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer });
    token = await idp.mintAccessToken({ sub: 'sub-root', username: 'root', realmRoles: ['admin'], expiresInSeconds: 600 });
    dir = await mkdtemp(join(tmpdir(), 'svc-cli-trace-'));
    runServer = createServer((req, res) => {
      if (req.url === `/runs/${RUN.id}`) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(JSON.stringify(RUN));
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const first = {
        seq: 1,
        ts: '2026-11-26T10:00:00.000Z',
        type: 'run.status',
        step_id: null,
        attempt: 1,
        data: { from: 'queued', to: 'succeeded' },
      };
      res.end(`id: 1\nevent: run.status\ndata: ${JSON.stringify(first)}\n\nevent: end\ndata: {"status":"succeeded"}\n\n`);
    });
    runServer.listen(0, '127.0.0.1');
    await once(runServer, 'listening');
    runServerUrl = `http://127.0.0.1:${(runServer.address() as AddressInfo).port}`;
    await writeFile(
      join(dir, 'hooks.mjs'),
      [
        "import { appendFileSync } from 'node:fs';",
        'let file;',
        'export function initialize(data) { file = data.file; }',
        'export async function resolve(specifier, context, next) {',
        '  const result = await next(specifier, context);',
        '  appendFileSync(file, `${result.url}\\n`);',
        '  return result;',
        '}',
      ].join('\n'),
    );
    await writeFile(
      join(dir, 'register.mjs'),
      [
        "import { register } from 'node:module';",
        `register(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)}, { data: { file: process.env.SVC_TRACE_FILE } });`,
      ].join('\n'),
    );
  });
  afterAll(async () => {
    runServer?.closeAllConnections();
    runServer?.close();
    await daemon?.close();
    await idp?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function traced(
    name: string,
    args: string[],
    env: Record<string, string> = {},
  ): Promise<{ code: number | null; stdout: string; loaded: string[] }> {
    const file = join(dir, `${name}.trace`);
    await writeFile(file, '');
    const child = spawn(process.execPath, ['--import', 'tsx', '--import', pathToFileURL(join(dir, 'register.mjs')).href, ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_CONFIG_HOME: dir, SVC_TRACE_FILE: file, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, stdout, loaded: (await readFile(file, 'utf8')).split('\n').filter(Boolean) };
  }
  const uiModules = (loaded: string[]) =>
    loaded.filter(
      (url) =>
        /\/node_modules\/(ink|react|react-reconciler|yoga-layout)\//.test(url) ||
        url.includes('/src/cli/ui/perms-matrix') ||
        url.includes('/src/cli/ui/run-watch.tsx'),
    );

  it('sees ink and react when the view module is imported (the control)', async () => {
    const { code, loaded } = await traced('control', ['--input-type=module', '-e', "await import('./src/cli/ui/perms-matrix.tsx')"]);
    expect(code).toBe(0);
    expect(loaded.some((url) => url.includes('/node_modules/ink/'))).toBe(true);
    expect(loaded.some((url) => url.includes('/node_modules/react/'))).toBe(true);
  });

  it('svc --help loads neither', async () => {
    const { code, stdout, loaded } = await traced('help', ['src/cli/main.ts', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('perms');
    expect(loaded.some((url) => url.includes('/node_modules/commander/'))).toBe(true);
    expect(uiModules(loaded)).toEqual([]);
  });

  it('svc perms actions --json (and svc perms without a terminal) loads neither', async () => {
    const json = await traced('actions-json', ['src/cli/main.ts', '--server', daemon.url, 'perms', 'actions', '--json'], {
      SVC_TOKEN: token,
    });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toHaveProperty('actions');
    expect(json.loaded.some((url) => url.endsWith('/src/cli/commands/perms/actions.ts'))).toBe(true);
    expect(uiModules(json.loaded)).toEqual([]);

    const alone = await traced('perms-alone', ['src/cli/main.ts', '--server', daemon.url, 'perms'], { SVC_TOKEN: token });
    expect(alone.code).toBe(0);
    expect(alone.loaded.some((url) => url.endsWith('/src/cli/commands/perms/browse.ts'))).toBe(true);
    expect(alone.loaded.some((url) => url.endsWith('/src/cli/ui/render.ts'))).toBe(true);
    expect(uiModules(alone.loaded)).toEqual([]);
  });

  it('svc runs watch without a terminal (lines, and --json) loads neither', async () => {
    for (const extra of [[], ['--json']]) {
      const watch = await traced(
        `watch${extra.join('')}`,
        ['src/cli/main.ts', '--server', runServerUrl, 'runs', 'watch', RUN.id, ...extra],
        {
          SVC_TOKEN: 'any',
        },
      );
      expect(watch.code).toBe(0);
      expect(watch.stdout).toContain('queued');
      expect(watch.loaded.some((url) => url.endsWith('/src/cli/commands/runs/watch.ts'))).toBe(true);
      expect(watch.loaded.some((url) => url.endsWith('/src/cli/ui/render.ts'))).toBe(true);
      expect(uiModules(watch.loaded)).toEqual([]);
    }
  });
});
