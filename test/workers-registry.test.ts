import { exportJWK, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beat, INTERNAL_TOKEN, startWorkerWorld, type WorkerWorld } from './helpers/workers-fixtures.js';

let world: WorkerWorld;

beforeAll(async () => {
  world = await startWorkerWorld();
});
afterAll(() => world?.close());

interface WorkerItem {
  id: string;
  hostname: string | null;
  labels: Record<string, string>;
  handlers: string[];
  capacity: number;
  running: number;
  draining: boolean;
  status: string;
}

async function listWorkers(
  query = '',
  authorization = world.viewer,
): Promise<{ status: number; body: { items: WorkerItem[]; total: number } }> {
  const response = await fetch(`${world.daemon.url}/workers${query}`, { headers: { authorization } });
  return { status: response.status, body: (await response.json()) as { items: WorkerItem[]; total: number } };
}

describe('GET /workers', () => {
  it('lists workers as their heartbeats describe them, online within a lease, offline after, newest seen first', async () => {
    await beat(world, {
      worker_id: 'w-old',
      hostname: 'old.example',
      labels: { zone: 'a' },
      handlers: ['general.noop'],
      free_slots: 2,
    });
    await beat(world, { worker_id: 'w-new', hostname: 'new.example', free_slots: 1, draining: true });
    await world.daemon.services.db
      .knex('workers')
      .where({ id: 'w-old' })
      .update({ last_seen_at: world.daemon.services.db.knex.raw(`now() - interval '1 hour'`) });

    const all = await listWorkers();
    expect(all.status).toBe(200);
    expect(all.body.items.map((w) => [w.id, w.status])).toEqual([
      ['w-new', 'online'],
      ['w-old', 'offline'],
    ]);
    expect(all.body.items[1]).toMatchObject({
      hostname: 'old.example',
      labels: { zone: 'a' },
      handlers: ['general.noop'],
      capacity: 2,
      running: 0,
    });
    expect(all.body.items[0]).toMatchObject({ draining: true, capacity: 1 });

    expect((await listWorkers('?status=online')).body.items.map((w) => w.id)).toEqual(['w-new']);
    const offline = await listWorkers('?status=offline');
    expect(offline.body.items.map((w) => w.id)).toEqual(['w-old']);
    expect(offline.body.total).toBe(1);
  });

  it('keeps labels and handlers a later heartbeat leaves out', async () => {
    await beat(world, { worker_id: 'w-keep', labels: { zone: 'b' }, handlers: ['general.sleep'] });
    await beat(world, { worker_id: 'w-keep' });
    const item = (await listWorkers()).body.items.find((w) => w.id === 'w-keep');
    expect(item).toMatchObject({ labels: { zone: 'b' }, handlers: ['general.sleep'] });
  });

  it('refuses a malformed filter and an unauthenticated caller', async () => {
    expect((await listWorkers('?status=gone')).status).toBe(422);
    expect((await fetch(`${world.daemon.url}/workers`)).status).toBe(401);
  });
});

async function putKey(body: unknown): Promise<Response> {
  return fetch(`${world.daemon.url}/internal/runtime/env-keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-internal-token': INTERNAL_TOKEN },
    body: JSON.stringify(body),
  });
}

function deleteKey(workerId: string): Promise<Response> {
  return fetch(`${world.daemon.url}/internal/runtime/env-keys/${workerId}`, {
    method: 'DELETE',
    headers: { 'x-internal-token': INTERNAL_TOKEN },
  });
}

describe('env keys', () => {
  it('registers (201), replaces (200) and removes (204, then 404) a worker key', async () => {
    const first = await exportJWK((await generateKeyPair('ECDH-ES+A256KW', { extractable: true })).publicKey);
    const created = await putKey({ worker_id: 'w-keys', algorithm: 'ECDH-ES+A256KW', public_key_jwk: first, key_id: 'k1' });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ worker_id: 'w-keys', key_id: 'k1', algorithm: 'ECDH-ES+A256KW', public_key_jwk: first });

    const second = await exportJWK((await generateKeyPair('RSA-OAEP-256', { extractable: true })).publicKey);
    const replaced = await putKey({
      worker_id: 'w-keys',
      algorithm: 'RSA-OAEP-256',
      public_key_jwk: second,
      key_id: 'k2',
      expires_at: '2030-01-01T00:00:00Z',
    });
    expect(replaced.status).toBe(200);
    expect(await replaced.json()).toMatchObject({ key_id: 'k2', expires_at: '2030-01-01T00:00:00.000Z' });
    const rows = await world.daemon.services.db.knex('worker_env_keys').where({ worker_id: 'w-keys' });
    expect(rows.map((r: { key_id: string }) => r.key_id)).toEqual(['k2']);

    expect((await deleteKey('w-keys')).status).toBe(204);
    const gone = await deleteKey('w-keys');
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { code: string }).code).toBe('resource_not_found');
  });

  it('refuses a private key with 422 naming its private member', async () => {
    const { privateKey } = await generateKeyPair('ECDH-ES+A256KW', { extractable: true });
    const response = await putKey({
      worker_id: 'w-priv',
      algorithm: 'ECDH-ES+A256KW',
      public_key_jwk: await exportJWK(privateKey),
      key_id: 'k',
    });
    expect(response.status).toBe(422);
    const problem = (await response.json()) as { code: string; errors: { path: string }[] };
    expect(problem.code).toBe('validation_failed');
    expect(problem.errors.map((e) => e.path)).toEqual(['public_key_jwk.d']);
  });

  it('refuses a key of another kind than the algorithm, and a key that is not one', async () => {
    const rsa = await exportJWK((await generateKeyPair('RSA-OAEP-256', { extractable: true })).publicKey);
    const mismatch = await putKey({ worker_id: 'w-kind', algorithm: 'ECDH-ES+A256KW', public_key_jwk: rsa, key_id: 'k' });
    expect(mismatch.status).toBe(422);
    const broken = await putKey({ worker_id: 'w-kind', algorithm: 'RSA-OAEP-256', public_key_jwk: { kty: 'RSA', n: 'AQAB' }, key_id: 'k' });
    expect(broken.status).toBe(422);
    expect(((await broken.json()) as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual(['public_key_jwk']);
  });

  it('refuses without the internal token', async () => {
    const response = await fetch(`${world.daemon.url}/internal/runtime/env-keys/w-keys`, { method: 'DELETE' });
    expect(response.status).toBe(401);
  });
});
