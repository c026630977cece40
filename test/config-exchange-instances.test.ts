import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND } from './helpers/backend.js';
import { finished, queue } from './helpers/config-exchange-fixtures.js';
import { startTestDaemonOn, type TestDaemon } from './helpers/daemon.js';
import { startWorld, type World } from './helpers/webhooks-fixtures.js';

/**
 * Two instances of one deployment on one PostgreSQL database (PGlite has one user): an operation queued
 * on an instance whose runner is stopped is claimed and run by the other.
 */
describe.skipIf(BACKEND !== 'postgres')('config exchange operations across daemons', () => {
  let a: World;
  let b: TestDaemon;

  beforeAll(async () => {
    const env = { SERVICE_SECRETS_ENCRYPTION_KEY: 'cd'.repeat(32) };
    a = await startWorld(env);
    b = await startTestDaemonOn(a.daemon.location, { ...env, SERVICE_IDP_ISSUER: a.idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('runs on the other instance an operation queued on one whose runner is stopped', async () => {
    await a.daemon.configExchange.runner.stop();
    try {
      const id = await queue(a, { mode: 'export', org: 'acme' });
      const done = await finished(a, id);
      expect(done.status).toBe('succeeded');
      const row = await a.knex()('config_exchange_operations').where({ correlation_id: id }).first('claimed_by');
      expect(row.claimed_by).toBe(b.configExchange.runner.instance);
    } finally {
      a.daemon.configExchange.runner.start();
    }
  });
});
