import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/daemon/config/config.js';
import { startDaemon, type RunningDaemon } from '../src/daemon/daemon.js';
import { openSecretsModule } from '../src/daemon/domains/secrets/module.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { freshDatabase } from './helpers/database.js';

/**
 * Values never reach the log: a daemon logging at `trace` into a buffer goes through every secret
 * operation (failures included), then the buffer is searched for each value.
 */
const VALUES = ['log-probe-value-one-7c1d', 'log-probe-value-two-93ab', 'log-probe-replaced-55ee', 'log-probe-malformed-0f0f'];
const lines: string[] = [];
let daemon: RunningDaemon;
let closeDb: () => Promise<void>;

beforeAll(async () => {
  const fresh = await freshDatabase();
  closeDb = () => fresh.location.drop();
  const config = loadConfig({
    SERVICE_PORT: '0',
    SERVICE_HOST: '127.0.0.1',
    SERVICE_LOG_LEVEL: 'trace',
    SERVICE_AUTH_DISABLED: 'true',
    ...fresh.location.env,
  });
  daemon = await startDaemon(config, createLogger('trace', { write: (line: string) => void lines.push(line) }), { database: fresh.db });
});
afterAll(async () => {
  await daemon?.stop();
  await closeDb?.();
});

async function call(method: string, path: string, body?: unknown, raw?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${daemon.url}${path}`, {
    method,
    headers: body === undefined && raw === undefined ? {} : { 'content-type': 'application/json' },
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe('secret values', () => {
  it('appear in no log line, whatever the operation and however it ends', async () => {
    const created = await call('POST', '/secrets', { name: 'probe', values: { token: VALUES[0], other: VALUES[1] } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await call('GET', `/secrets/${id}`)).status).toBe(200);
    expect((await call('PATCH', `/secrets/${id}`, { values: { token: VALUES[2] }, remove_keys: ['other'] })).status).toBe(200);
    expect((await call('POST', `/secrets/${id}/duplicate`, { name: 'probe-copy' })).status).toBe(201);
    expect((await call('POST', '/secrets', { name: 'probe', values: { token: VALUES[0] } })).status).toBe(409);
    expect((await call('POST', '/secrets', { name: 'x', values: { '1bad': VALUES[1] } })).status).toBe(422);
    expect((await call('POST', '/secrets', undefined, `{"name":"x","values":{"a":${VALUES[3]}}}`)).status).toBe(400);
    const secrets = await openSecretsModule(daemon.services);
    expect(await secrets.resolver.resolveReference(created.body.org_id, 'builtin://orgs/default/secrets/probe')).toBe(VALUES[2]);

    // A tampered row: the read fails (503) and the failure is logged, without the value.
    const knex = daemon.services.db.knex;
    const [row] = await knex('secret_values').where({ location: 'orgs/default/secrets/probe-copy' }).select('id', 'ciphertext');
    await knex('secret_values')
      .where({ id: row.id })
      .update({ ciphertext: Buffer.from(row.ciphertext).reverse() });
    const copy = (await call('GET', '/secrets')).body.items.find((s: { name: string }) => s.name === 'probe-copy');
    expect((await call('GET', `/secrets/${copy.id}`)).status).toBe(503);
    expect((await call('DELETE', `/secrets/${id}`)).status).toBe(204);

    const log = lines.join('');
    expect(log).toContain('secret backend failed');
    expect(log).toContain('"route":"/secrets"');
    for (const value of VALUES) expect(log, value).not.toContain(value);
  });
});
