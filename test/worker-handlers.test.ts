import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STEP_HANDLERS } from '../src/shared/flows/step-handlers/index.js';
import { RUNNABLE_HANDLERS, unavailableHandler } from '../src/worker/handlers/index.js';
import { WORKER_SETTINGS, defaultWorkerId, loadWorkerSettings, WorkerSettingError } from '../src/worker/settings.js';

describe('the handler table', () => {
  it('runs general.noop, general.sleep, flow.run, flow.notify, the probes and the connectivity monitors', () => {
    expect([...RUNNABLE_HANDLERS.keys()].sort()).toEqual([
      'flow.notify',
      'flow.run',
      'general.noop',
      'general.sleep',
      'monitor.connectivity',
      'monitor.start',
      'monitor.stop',
      'probe.connectivity',
      'probe.dns',
      'probe.http',
      'probe.wait_reachable',
    ]);
  });

  it('gives every other catalogue handler a reason it is refused', () => {
    for (const handler of STEP_HANDLERS) {
      const refusal = unavailableHandler(handler.id);
      if (RUNNABLE_HANDLERS.has(handler.id)) expect(refusal, handler.id).toBeUndefined();
      else expect(refusal?.needs, handler.id).toMatch(/^(container_engine|device_access|domain_not_built|no_worker_route)$/);
    }
    expect(unavailableHandler('container.run')?.needs).toBe('container_engine');
    expect(unavailableHandler('netcli.execute')?.needs).toBe('device_access');
    expect(unavailableHandler('shell.execute')?.needs).toBe('device_access');
    expect(unavailableHandler('probe.http')).toBeUndefined();
    expect(unavailableHandler('monitor.stop')).toBeUndefined();
    expect(unavailableHandler('flow.notify')).toBeUndefined();
    expect(unavailableHandler('flow.git_sync')?.needs).toBe('no_worker_route');
    expect(unavailableHandler('evidence.assert')?.needs).toBe('no_worker_route');
    expect(unavailableHandler('evidence.compare')?.needs).toBe('no_worker_route');
    expect(unavailableHandler('no.such')?.needs).toBe('unknown_handler');
  });

  it('is what docs/worker.md lists', () => {
    const doc = readFileSync(new URL('../docs/worker.md', import.meta.url), 'utf8');
    for (const handler of STEP_HANDLERS) expect(doc, handler.id).toContain(`\`${handler.id}\``);
  });
});

describe('worker settings', () => {
  it('defaults to a local daemon, 4 slots and <hostname>-<pid>', () => {
    const settings = loadWorkerSettings({});
    expect(settings).toMatchObject({
      serverUrl: 'http://127.0.0.1:8080',
      capacity: 4,
      shutdownGraceSeconds: 25,
    });
    expect(settings.internalApiToken).toBeUndefined();
    expect(settings.workerId).toBe(defaultWorkerId());
    expect(defaultWorkerId('weird host!', 42)).toBe('weird-host--42');
  });

  it('names every bad variable', () => {
    try {
      loadWorkerSettings({ SERVICE_SERVER_URL: 'ftp://x', SERVICE_WORKER_CAPACITY: '0', SERVICE_WORKER_ID: '-bad' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(WorkerSettingError);
      expect((error as WorkerSettingError).problems.map((p) => p.variable).sort()).toEqual([
        'SERVICE_SERVER_URL',
        'SERVICE_WORKER_CAPACITY',
        'SERVICE_WORKER_ID',
      ]);
    }
  });

  it('documents every setting in the README table', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const definition of Object.values(WORKER_SETTINGS)) expect(readme, definition.env).toContain(`| \`${definition.env}\` |`);
  });
});
