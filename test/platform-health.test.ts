import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlatformHealthAnswer } from '../src/shared/api/platform-health.js';
import { createRepository } from './helpers/files-fixtures.js';
import { call, createSecret, startWorld, type World } from './helpers/webhooks-fixtures.js';

/** A request's own deadline: the route must answer within it whatever its dependencies do (not a measured speed). */
const BUDGET_MS = 8000;
let world: World;
const repos: Record<string, string> = {};

beforeAll(async () => {
  world = await startWorld();
  await createSecret(world, 'alice', 's3-access-key', 'key');
  await createSecret(world, 'alice', 's3-secret-key', 'secret');
  repos.local = await createRepository(world, { kind: 'local', name: 'local' });
  // Port 9 (discard) on loopback: nothing listens, the connection is refused.
  repos.dead = await createRepository(world, {
    kind: 's3',
    name: 'dead',
    config: {
      endpoint: 'http://127.0.0.1:9',
      region: 'us-east-1',
      bucket: 'svc-health',
      prefix: '',
      access_key_id_ref: 'builtin://orgs/acme/secrets/s3-access-key',
      secret_access_key_ref: 'builtin://orgs/acme/secrets/s3-secret-key',
    },
  });
  const knex = world.knex();
  await knex('workers').insert({ id: 'live-1', last_seen_at: new Date() });
  await knex('workers').insert({ id: 'stale-1', last_seen_at: new Date(Date.now() - 3_600_000) });
});
afterAll(() => world?.close());

async function health(who = 'root'): Promise<{ status: number; body: PlatformHealthAnswer & { code?: string } }> {
  const response = await fetch(`${world.url}/platform/health`, {
    headers: { authorization: world.as[who]! },
    signal: AbortSignal.timeout(BUDGET_MS),
  });
  return { status: response.status, body: (await response.json()) as PlatformHealthAnswer & { code?: string } };
}

describe('GET /platform/health', () => {
  it('reports every check with a status and latency, a dead S3 repository down and the report still answered', async () => {
    const { status, body } = await health();
    expect(status).toBe(200);
    expect(body.cached).toBe(false);
    const byName = new Map(body.checks.map((check) => [check.name, check]));
    expect([...byName.keys()]).toEqual([
      'database',
      'identity_provider',
      'secret_backends',
      'workers',
      'scheduler',
      'maintenance',
      'registry',
      'file_repositories',
    ]);
    for (const check of body.checks) expect(check.latency_ms).toBeGreaterThanOrEqual(0);
    expect(byName.get('database')!.status).toBe('ok');
    expect(byName.get('identity_provider')!.status).toBe('ok');
    expect(byName.get('secret_backends')!.status).toBe('ok');
    expect(byName.get('registry')!.status).toBe('not_configured');
    expect(byName.get('workers')).toMatchObject({ status: 'ok', detail: { live: 1, stale: 1 } });
    const files = byName.get('file_repositories')!;
    expect(files).toMatchObject({ status: 'degraded', detail: { total: 2, checked: 2, down: 1 } });
    const items = (files.detail as { repositories: { id: string; status: string; reason?: string }[] }).repositories;
    expect(items.find((item) => item.id === repos.dead)).toMatchObject({ status: 'down', reason: 'unreachable' });
    expect(items.find((item) => item.id === repos.local)).toMatchObject({ status: 'ok' });
    // A pass never ran here (the timer's first is an interval away): the maintenance check says so.
    expect(byName.get('maintenance')).toMatchObject({ status: 'degraded', detail: { reason: 'never_ran' } });
    expect(body.status).toBe('degraded');
  });

  it('serves the same report again for a few seconds', async () => {
    const first = await health();
    const again = await health();
    expect(again.body.cached).toBe(true);
    expect(again.body.checked_at).toBe(first.body.checked_at);
  });

  it('is refused to an organization admin who is no platform admin (403)', async () => {
    const refused = await health('alice');
    expect([refused.status, refused.body.code]).toEqual([403, 'forbidden']);
  });
});
