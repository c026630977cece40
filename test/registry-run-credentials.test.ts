import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { call, count, createSecret, seedFlow, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

/**
 * `GET /internal/runs/{run_id}/registry-credentials`: the worker holding a run reads its organization's
 * upstream registry logins, passwords resolved; fenced as the other run callbacks are.
 */

const TOKEN = 'registry-run-credentials-internal-token-0123';
const HOLDER = { 'x-worker-id': 'hand', 'x-run-attempt': '1' };

let world: World;
const knex = () => world.knex();
const runs: Record<string, string> = {};

const oneStep: FlowDefinition = { steps: [{ id: 'only', handler: 'general.noop', config: {} }], edges: [], inputs: [], target_roles: [] };

async function credential(who: string, org: string, fields: Record<string, unknown>): Promise<string> {
  const created = await call(world, who, 'POST', '/registry-credentials', fields, org);
  if (created.status !== 201) throw new Error(`POST /registry-credentials answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

/** A run of acme, held by worker `hand` in attempt 1 with the given status. */
async function heldRun(name: string, status: string): Promise<string> {
  const flowId = await seedFlow(knex(), world.ids.acme!, { name, versions: [oneStep] });
  const started = await call(world, 'dave', 'POST', '/runs', { flow_id: flowId });
  if (started.status !== 201) throw new Error(`POST /runs answered ${started.status}: ${JSON.stringify(started.body)}`);
  const id = started.body.id as string;
  await knex()('runs')
    .where({ id })
    .update({ status, worker_id: 'hand', attempt: 1, lease_expires_at: new Date(Date.now() + 600_000) });
  return id;
}

async function read(runId: string, headers: Record<string, string>, token: string | null = TOKEN) {
  const response = await fetch(`${world.url}/internal/runs/${runId}/registry-credentials`, {
    headers: { ...(token === null ? {} : { 'x-internal-token': token }), ...headers },
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  world = await startWorld({ SERVICE_INTERNAL_API_TOKEN: TOKEN });
  await createSecret(world, 'alice', 'dockerhub', 'acme-docker-password');
  await createSecret(world, 'bob', 'ghcr', 'globex-ghcr-password', 'globex');
  await createSecret(world, 'sam', 'shared-quay', 'shared-quay-password', 'commons');
  await credential('alice', 'acme', { registry: 'docker.io', username: 'acme-bot', password_ref: "{{ secret('dockerhub') }}" });
  await credential('alice', 'acme', { registry: 'quay.io', username: 'acme-quay', password_ref: "{{ secret('no-such-secret') }}" });
  await credential('bob', 'globex', { registry: 'ghcr.io', username: 'globex-bot', password_ref: "{{ secret('ghcr') }}" });
  await credential('sam', 'commons', {
    registry: 'registry.example.com',
    username: 'shared-bot',
    password_ref: "{{ secret('shared-quay') }}",
  });
  runs.held = await heldRun('held-by-hand', 'running');
  runs.paused = await heldRun('paused-by-hand', 'paused');
});

afterAll(async () => {
  await world?.close();
});

describe('GET /internal/runs/{run_id}/registry-credentials', () => {
  it("answers the run organization's own credentials, password resolved, the unresolvable one named, nothing audited, no-store", async () => {
    const audits = await count(knex()('audit_logs'));
    const answer = await read(runs.held!, HOLDER);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.body).toEqual({
      run_id: runs.held,
      org_id: world.ids.acme,
      credentials: [
        {
          id: expect.any(String),
          registry: 'docker.io',
          url: 'https://registry-1.docker.io',
          username: 'acme-bot',
          password: 'acme-docker-password',
        },
      ],
      unresolved: [{ id: expect.any(String), registry: 'quay.io', reason: 'not_found' }],
    });
    expect(await count(knex()('audit_logs'))).toBe(audits);
  });

  it("never gives another organization's nor the shared organization's credentials", async () => {
    const answer = await read(runs.held!, HOLDER);
    const registries = [...answer.body.credentials, ...answer.body.unresolved].map((c: { registry: string }) => c.registry);
    expect(registries).not.toContain('ghcr.io');
    expect(registries).not.toContain('registry.example.com');
  });

  it('is fenced: another worker or attempt 409 run_not_held, a paused run 409 invalid_run_state, unknown run 404', async () => {
    const other = await read(runs.held!, { 'x-worker-id': 'someone-else', 'x-run-attempt': '1' });
    expect([other.status, other.body.code]).toEqual([409, 'run_not_held']);
    const older = await read(runs.held!, { 'x-worker-id': 'hand', 'x-run-attempt': '2' });
    expect([older.status, older.body.code]).toEqual([409, 'run_not_held']);
    const paused = await read(runs.paused!, HOLDER);
    expect([paused.status, paused.body.code]).toEqual([409, 'invalid_run_state']);
    for (const id of [UNKNOWN_ID, 'not-a-uuid']) {
      const missing = await read(id, HOLDER);
      expect([missing.status, missing.body.code]).toEqual([404, 'resource_not_found']);
    }
    const bare = await read(runs.held!, {});
    expect([bare.status, bare.body.code]).toEqual([422, 'validation_failed']);
  });

  it('answers 401 without the internal token or with a wrong one', async () => {
    expect((await read(runs.held!, HOLDER, null)).status).toBe(401);
    expect((await read(runs.held!, HOLDER, 'wrong-token')).status).toBe(401);
  });
});
