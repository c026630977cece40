import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { ReferenceWorker } from '../src/worker/worker.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedFlow } from './helpers/runs-fixtures.js';
import { seedOrg, seedUser } from './helpers/seed.js';

const TOKEN = 'worker-probes-e2e-internal-token';

let idp: DevIdp;
let daemon: TestDaemon;
let worker: ReferenceWorker | undefined;
let listener: Server;
let operator: string;
let device: string;
const flows: Record<string, string> = {};
const knex = () => daemon.services.db.knex;

const definition = (steps: FlowDefinition['steps']): FlowDefinition => ({
  steps,
  edges: steps.slice(1).map((s, i) => ({ from: steps[i]!.id, to: s.id })),
  inputs: [],
  target_roles: [{ name: 'devices', min_devices: 1 }],
});

beforeAll(async () => {
  listener = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const openPort = (listener.address() as AddressInfo).port;
  const closing = createServer();
  await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
  const closedPort = (closing.address() as AddressInfo).port;
  await new Promise((resolve) => closing.close(resolve));

  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false', SERVICE_INTERNAL_API_TOKEN: TOKEN });
  const db = knex();
  const acme = await seedOrg(db, 'acme');
  await seedUser(db, { sub: 'sub-opal', username: 'opal' }, [{ orgSlug: 'acme', role: 'operator' }]);
  operator = `Bearer ${await idp.mintAccessToken({ sub: 'sub-opal', username: 'opal', realmRoles: [] })}`;
  const [row] = await db('devices').insert({ org_id: acme, name: 'loopback', hostname: '127.0.0.1' }).returning('id');
  device = (row as { id: string }).id;
  const probe = (port: number) => ({
    id: 'reach',
    handler: 'probe.connectivity',
    config: { check_type: 'tcp_connect', port, timeout_sec: 2 },
  });
  const seed = async (name: string, def: FlowDefinition) => (flows[name] = await seedFlow(db, acme, { name, versions: [def] }));
  await seed('open', definition([probe(openPort)]));
  await seed('closed', definition([probe(closedPort)]));
  await seed(
    'monitored',
    definition([
      { id: 'watch', handler: 'monitor.connectivity', config: { port: openPort, schedule_mode: 'count', count: 4, interval_ms: 100 } },
      { id: 'after', handler: 'general.noop', config: {} },
    ]),
  );

  worker = new ReferenceWorker({
    serverUrl: daemon.url,
    internalApiToken: TOKEN,
    workerId: 'probe-worker',
    capacity: 2,
    shutdownGraceSeconds: 5,
  });
  worker.start();
});

afterAll(async () => {
  await worker?.stop();
  await daemon?.close();
  await idp?.stop();
  listener?.close();
});

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: operator, 'x-org-id': 'acme', ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as T;
}

interface RunView {
  id: string;
  status: string;
}
type RunError = { code: string; step_id?: string; failed_targets?: { device_id: string; code: string }[] };

async function runToEnd(flow: string): Promise<RunView> {
  const { id } = await api<{ id: string }>('POST', '/runs', { flow_id: flows[flow], targets: { devices: [device] } });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const run = await api<RunView>('GET', `/runs/${id}`);
    if (['succeeded', 'failed', 'cancelled'].includes(run.status)) return run;
    if (Date.now() > deadline) throw new Error(`run ${id} did not end: ${run.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const stepRun = async (runId: string, stepId: string) =>
  (await knex()('step_runs').where({ run_id: runId, step_id: stepId }).first()) as {
    status: string;
    outputs_json: Record<string, unknown>;
    error_json: { code: string } | null;
  };

describe('the reference worker probes and monitors a run target by its address', () => {
  it('probe.connectivity tcp_connect succeeds against a port the device listens on', async () => {
    const run = await runToEnd('open');
    expect(run.status).toBe('succeeded');
    const step = await stepRun(run.id, 'reach');
    expect(step.status).toBe('succeeded');
    expect(step.outputs_json).toMatchObject({ check_type: 'tcp_connect', passed: 1, failed: 0 });
  });

  it('fails the step and the run probe_failed against a closed port, naming the device and connection_refused', async () => {
    const run = await runToEnd('closed');
    expect(run.status).toBe('failed');
    const { error_json: error } = (await knex()('runs').where({ id: run.id }).first()) as { error_json: RunError };
    expect(error).toMatchObject({ code: 'probe_failed', step_id: 'reach' });
    expect(error.failed_targets).toEqual([expect.objectContaining({ device_id: device, code: 'connection_refused' })]);
    expect((await stepRun(run.id, 'reach')).error_json?.code).toBe('probe_failed');
  });

  it('monitor.connectivity in count mode leaves a closed monitor with its samples, readable by the run routes', async () => {
    const run = await runToEnd('monitored');
    expect(run.status).toBe('succeeded');
    const { items } = await api<{ items: { id: string; step_id: string; kind: string; status: string; sample_count: number }[] }>(
      'GET',
      `/runs/${run.id}/monitors`,
    );
    expect(items).toEqual([
      expect.objectContaining({ step_id: 'watch', kind: 'connectivity.tcp_connect', status: 'closed', sample_count: 4 }),
    ]);
    const samples = await api<{ items: { seq: number; status: string; value: number | null }[]; next_after: number | null }>(
      'GET',
      `/runs/${run.id}/monitors/${items[0]!.id}/samples`,
    );
    expect(samples.items.map((s) => [s.seq, s.status])).toEqual([
      [1, 'ok'],
      [2, 'ok'],
      [3, 'ok'],
      [4, 'ok'],
    ]);
    expect(samples.next_after).toBeNull();
    const monitor = await api<{ summary: { samples: number; ended_by: string } }>('GET', `/runs/${run.id}/monitors/${items[0]!.id}`);
    expect(monitor.summary).toMatchObject({ samples: 4, ended_by: 'count' });
  });
});
