import { spawn } from 'node:child_process';
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

  beforeAll(async () => {
    idp = await startDevIdp();
    daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer });
    token = await idp.mintAccessToken({ sub: 'sub-root', username: 'root', realmRoles: ['admin'], expiresInSeconds: 600 });
    dir = await mkdtemp(join(tmpdir(), 'svc-cli-trace-'));
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
      (url) => /\/node_modules\/(ink|react|react-reconciler|yoga-layout)\//.test(url) || url.includes('/src/cli/ui/perms-matrix'),
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
});
