import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND } from './helpers/backend.js';
import { startTestDaemonOn, type TestDaemon } from './helpers/daemon.js';
import {
  createNetboxProvider,
  providerPath,
  seedNetbox,
  startProviderWorld,
  sync,
  type ProviderWorld,
} from './helpers/inventory-providers-fixtures.js';

/**
 * Two instances of one deployment on one PostgreSQL database (PGlite has one user): a sync of a provider
 * running on daemon A makes the same sync on daemon B answer 409, as on one daemon; once A is done, B
 * syncs.
 */
describe.skipIf(BACKEND !== 'postgres')('one sync of a provider across daemons', () => {
  let a: ProviderWorld;
  let b: TestDaemon;
  let providerId: string;

  beforeAll(async () => {
    const env = { SERVICE_SECRETS_ENCRYPTION_KEY: 'ab'.repeat(32), SERVICE_OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8' };
    a = await startProviderWorld(env);
    b = await startTestDaemonOn(a.daemon.location, { ...env, SERVICE_IDP_ISSUER: a.idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' });
    seedNetbox(a.netbox, { sites: 2, devices: 20, vlans: 0 });
    providerId = (await createNetboxProvider(a, 'shared-dc')).provider_id;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const syncOnB = async () => {
    const response = await fetch(`${b.url}${providerPath(providerId, '/sync')}`, {
      method: 'POST',
      headers: { authorization: a.as.alice!, 'x-org-id': 'acme', 'content-type': 'application/json' },
      body: '{}',
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('answers 409 on B while A syncs, then syncs on B', async () => {
    a.netbox.faults.push({ path: '/api/dcim/sites/', offset: 0, kind: 'slow', delayMs: 1500, times: 1 });
    const onA = sync(a, providerId);
    for (let i = 0; i < 1000 && !(await a.knex()('inventory_sync_runs').where({ status: 'running' }).first()); i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const second = await syncOnB();
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('inventory_sync_running');
    expect((await onA).status).toBe(200);
    const third = await syncOnB();
    expect(third.status).toBe(200);
    expect(third.body.status).toBe('succeeded');
  });
});
