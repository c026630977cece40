import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { ReferenceWorker } from '../src/worker/worker.js';
import { call, createSecret, seedFlow, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

/**
 * `GET /internal/variables` as the worker reads it, and the reference worker rendering
 * `{{ variables.<name> }}` from it in a real run: the organization's variables over the shared
 * organization's, a `secret_ref` variable resolved to its secret's value, a deleted one gone.
 */

const TOKEN = 'variables-e2e-internal-token-0123456789';

let world: World;
let worker: ReferenceWorker | undefined;
const flows: Record<string, string> = {};
const knex = () => world.knex();

const oneStep = (config: Record<string, unknown>): FlowDefinition => ({
  steps: [{ id: 'only', handler: 'general.noop', config }],
  edges: [],
  inputs: [],
  target_roles: [],
});

async function variable(fields: Record<string, unknown>, who = 'alice', org = 'acme'): Promise<string> {
  const created = await call(world, who, 'POST', '/variables', fields, org);
  if (created.status !== 201) throw new Error(`POST /variables answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

async function startRun(flow: string): Promise<string> {
  const answer = await call(world, 'dave', 'POST', '/runs', { flow_id: flows[flow] });
  if (answer.status !== 201) throw new Error(`POST /runs answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.id as string;
}

async function read(runId: string, headers: Record<string, string>, token = TOKEN) {
  const response = await fetch(`${world.url}/internal/variables?run_id=${runId}`, { headers: { 'x-internal-token': token, ...headers } });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  world = await startWorld({ SERVICE_INTERNAL_API_TOKEN: TOKEN });
  await createSecret(world, 'alice', 'snmp-community', 's3cret-community');
  await variable({ name: 'region', type: 'string', value: 'eu-central' });
  await variable({ name: 'limits', type: 'json', value: { mtu: 9000, vlans: [10, 20] } });
  await variable({ name: 'retries', type: 'number', value: 3 });
  await variable({ name: 'snmp', type: 'secret_ref', value: "{{ secret('snmp-community') }}" });
  await variable({ name: 'dangling', type: 'secret_ref', value: "{{ secret('no-such-secret') }}" });
  const gone = await variable({ name: 'gone', type: 'string', value: 'deleted' });
  expect((await call(world, 'alice', 'DELETE', `/variables/${gone}`)).status).toBe(204);
  await variable({ name: 'region', type: 'string', value: 'global' }, 'sam', 'commons');
  await variable({ name: 'ntp', type: 'string', value: '10.0.0.1' }, 'sam', 'commons');
  await variable({ name: 'region', type: 'string', value: 'us-east' }, 'bob', 'globex');

  const db = knex();
  flows.uses = await seedFlow(db, world.ids.acme!, {
    name: 'uses-variables',
    versions: [
      oneStep({
        outputs: {
          region: '{{ variables.region }}',
          mtu: '{{ variables.limits.mtu }}',
          limits: '{{ variables.limits }}',
          retries: '{{ variables.retries }}',
          ntp: '{{ variables.ntp }}',
          community: '{{ variables.snmp }}',
          line: 'ntp server {{ variables.ntp }} in {{ variables.region }}',
        },
      }),
    ],
  });
  flows.deleted = await seedFlow(db, world.ids.acme!, {
    name: 'uses-deleted',
    versions: [oneStep({ outputs: { v: '{{ variables.gone }}' } })],
  });
  flows.dangling = await seedFlow(db, world.ids.acme!, {
    name: 'uses-dangling',
    versions: [oneStep({ outputs: { v: '{{ variables.dangling }}' } })],
  });
  flows.held = await seedFlow(db, world.ids.acme!, { name: 'held-by-hand', versions: [oneStep({})] });
});

afterAll(async () => {
  await worker?.stop();
  await world?.close();
});

describe('GET /internal/variables (no worker running: the run is held by hand)', () => {
  let runId: string;

  beforeAll(async () => {
    runId = await startRun('held');
    await knex()('runs')
      .where({ id: runId })
      .update({ status: 'running', worker_id: 'hand', attempt: 1, lease_expires_at: new Date(Date.now() + 600_000) });
  });

  it("answers the run organization's variables over the shared one's, secret_ref resolved, the unreadable one named", async () => {
    const answer = await read(runId, { 'x-worker-id': 'hand', 'x-run-attempt': '1' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      run_id: runId,
      org_id: world.ids.acme,
      variables: {
        region: 'eu-central',
        limits: { mtu: 9000, vlans: [10, 20] },
        retries: 3,
        snmp: 's3cret-community',
        ntp: '10.0.0.1',
      },
      secret_names: ['snmp'],
      unresolved: [{ name: 'dangling', reason: 'not_found' }],
    });
  });

  it('is fenced: another worker or attempt 409 run_not_held, missing headers 422, unknown run 404, no token 401', async () => {
    const other = await read(runId, { 'x-worker-id': 'someone-else', 'x-run-attempt': '1' });
    expect([other.status, other.body.code]).toEqual([409, 'run_not_held']);
    const older = await read(runId, { 'x-worker-id': 'hand', 'x-run-attempt': '2' });
    expect([older.status, older.body.code]).toEqual([409, 'run_not_held']);
    const bare = await read(runId, {});
    expect([bare.status, bare.body.code]).toEqual([422, 'validation_failed']);
    for (const id of [UNKNOWN_ID, 'not-a-uuid']) {
      const missing = await read(id, { 'x-worker-id': 'hand', 'x-run-attempt': '1' });
      expect([missing.status, missing.body.code]).toEqual([404, 'resource_not_found']);
    }
    const noToken = await read(runId, { 'x-worker-id': 'hand', 'x-run-attempt': '1' }, 'wrong-token');
    expect(noToken.status).toBe(401);
    const noRunId = await fetch(`${world.url}/internal/variables`, { headers: { 'x-internal-token': TOKEN } });
    expect(noRunId.status).toBe(422);
  });

  it('answers a finished run 409 invalid_run_state', async () => {
    await knex()('runs').where({ id: runId }).update({ status: 'succeeded' });
    const answer = await read(runId, { 'x-worker-id': 'hand', 'x-run-attempt': '1' });
    expect([answer.status, answer.body.code]).toEqual([409, 'invalid_run_state']);
  });
});

describe('GET /internal/secrets-backends', () => {
  it('lists the backends by scheme for the worker, never their configuration; needs the internal token', async () => {
    const answer = await fetch(`${world.url}/internal/secrets-backends`, { headers: { 'x-internal-token': TOKEN } });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { items: Record<string, unknown>[] };
    expect(body.items).toContainEqual(expect.objectContaining({ type: 'builtin', is_default: true, available: true }));
    for (const item of body.items) expect(Object.keys(item).sort()).toEqual(['available', 'id', 'is_default', 'name', 'scheme', 'type']);
    expect((await fetch(`${world.url}/internal/secrets-backends`)).status).toBe(401);
  });
});

describe('the reference worker renders {{ variables.<name> }} in a run', () => {
  beforeAll(() => {
    worker = new ReferenceWorker({
      serverUrl: world.url,
      internalApiToken: TOKEN,
      workerId: 'variables-e2e',
      capacity: 2,
      shutdownGraceSeconds: 5,
      callbackRetry: { attempts: 3, maxElapsedMs: 5_000, baseDelayMs: 20, maxDelayMs: 200 },
    });
    worker.start();
  });

  async function finished(id: string): Promise<{ status: string; outputs_json: Record<string, unknown>; error_json: any }> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const row = await knex()('runs').where({ id }).first('status', 'outputs_json', 'error_json');
      if (['succeeded', 'failed', 'cancelled'].includes(row.status)) return row;
      if (Date.now() > deadline) throw new Error(`run ${id} still ${row.status}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it("gives a step the variables' values with their types, the organization's over the shared one's, a secret_ref its secret", async () => {
    const run = await finished(await startRun('uses'));
    expect(run.status).toBe('succeeded');
    expect(run.outputs_json).toEqual({
      region: 'eu-central',
      mtu: 9000,
      limits: { mtu: 9000, vlans: [10, 20] },
      retries: 3,
      ntp: '10.0.0.1',
      community: 's3cret-community',
      line: 'ntp server 10.0.0.1 in eu-central',
    });
  });

  it('fails the step with template_error for a deleted variable and for one whose secret is gone', async () => {
    for (const flow of ['deleted', 'dangling']) {
      const run = await finished(await startRun(flow));
      expect(run.status).toBe('failed');
      expect(run.error_json).toMatchObject({ code: 'template_error', step_id: 'only' });
    }
  });
});
