import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import knexFactory from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/daemon/config/config.js';
import { startDaemon, type RunningDaemon } from '../src/daemon/daemon.js';
import type { Database } from '../src/daemon/db/database.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { withDatabase } from './helpers/backend.js';
import { copyTemplate, type DatabaseLocation } from './helpers/database.js';
import { postgresAnswers, POSTGRES_SERVER_URL } from './helpers/postgres-server.js';
import { collect, spawnTs, waitForListening } from './helpers/spawn.js';
import { TcpProxy } from './helpers/tcp-proxy.js';

/**
 * A wrong encryption key fails start-up, not the reads after it: the first start records the key's
 * fingerprint and an encrypted canary, every later start checks them.
 */
const KEY_A = randomBytes(32).toString('hex');
const KEY_B = randomBytes(32).toString('hex');

let location: DatabaseLocation;
let keyDir: string;
beforeAll(async () => {
  location = await copyTemplate();
  keyDir = await mkdtemp(join(tmpdir(), 'svc-test-keys-'));
});
afterAll(async () => {
  await location?.drop();
  await rm(keyDir, { recursive: true, force: true });
});

function env(extra: Record<string, string>): Record<string, string> {
  return {
    SERVICE_PORT: '0',
    SERVICE_HOST: '127.0.0.1',
    SERVICE_LOG_LEVEL: 'silent',
    SERVICE_AUTH_DISABLED: 'true',
    ...location.env,
    ...extra,
  };
}

/** A daemon over the test's database; the database handle is closed by `stop`, or at once when start-up fails. */
async function start(extra: Record<string, string>): Promise<RunningDaemon> {
  const config = loadConfig(env(extra));
  const database: Database = await location.open();
  try {
    return await startDaemon(config, createLogger('silent'), { database });
  } catch (error) {
    await database.close();
    throw error;
  }
}

async function call(daemon: RunningDaemon, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${daemon.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

describe('the secrets encryption key', () => {
  let secretId: string;

  it('is checked at the first start, and the same key starts again with the values readable', async () => {
    const first = await start({ SERVICE_SECRETS_ENCRYPTION_KEY: KEY_A });
    try {
      const created = await call(first, 'POST', '/secrets', { name: 'router', values: { password: 'pw-under-key-a' } });
      expect(created.status).toBe(201);
      secretId = created.body.id;
      expect(await first.services.db.knex('secret_key_checks').select('scope')).toEqual([{ scope: 'builtin' }]);
    } finally {
      await first.stop();
    }
    const again = await start({ SERVICE_SECRETS_ENCRYPTION_KEY: KEY_A });
    try {
      expect((await call(again, 'GET', `/secrets/${secretId}`)).body.keys).toEqual(['password']);
    } finally {
      await again.stop();
    }
  });

  it('refuses start-up with another key: startDaemon rejects with a ConfigError naming the setting', async () => {
    const refused = await start({ SERVICE_SECRETS_ENCRYPTION_KEY: KEY_B }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).problems.map((p) => p.variable)).toEqual(['SERVICE_SECRETS_ENCRYPTION_KEY']);
  });

  it('makes svcd exit 78 with the configuration summary naming the setting', async () => {
    const { code, stderr } = await collect(spawnTs('src/daemon/main.ts', [], env({ SERVICE_SECRETS_ENCRYPTION_KEY: KEY_B }))).finished;
    expect(code).toBe(78);
    expect(JSON.parse(stderr.trim().split('\n').at(-1)!)).toEqual({
      code: 'config.invalid',
      variables: ['SERVICE_SECRETS_ENCRYPTION_KEY'],
    });
    expect(stderr).not.toContain(KEY_B);
  }, 120_000);

  it('still refuses another key when the check row is gone but values encrypted under the old key remain', async () => {
    const db = await location.open();
    await db.knex('secret_key_checks').delete();
    await db.close();
    await expect(start({ SERVICE_SECRETS_ENCRYPTION_KEY: KEY_B })).rejects.toBeInstanceOf(ConfigError);
    const restored = await start({ SERVICE_SECRETS_ENCRYPTION_KEY: KEY_A });
    await restored.stop();
  });

  it('is generated once into <dataDir>/secrets.key (mode 0600) when unset, reused, and a lost file refuses start-up', async () => {
    const db = await location.open();
    await db.knex('secret_values').delete();
    await db.knex('secrets').delete();
    await db.knex('secret_key_checks').delete();
    await db.close();
    const dataDir = await mkdtemp(join(tmpdir(), 'svc-test-keyfile-'));
    try {
      const first = await start({ SERVICE_DATA_DIR: dataDir });
      await first.stop();
      const file = join(dataDir, 'secrets.key');
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      const key = (await readFile(file, 'utf8')).trim();
      expect(key).toMatch(/^[0-9a-f]{64}$/);

      const again = await start({ SERVICE_DATA_DIR: dataDir });
      await again.stop();
      expect((await readFile(file, 'utf8')).trim()).toBe(key);
      // The file's key given as the setting is the same key.
      const bySetting = await start({ SERVICE_DATA_DIR: keyDir, SERVICE_SECRETS_ENCRYPTION_KEY: key });
      await bySetting.stop();

      const otherDir = await mkdtemp(join(tmpdir(), 'svc-test-keyfile-'));
      try {
        await expect(start({ SERVICE_DATA_DIR: otherDir })).rejects.toBeInstanceOf(ConfigError);
      } finally {
        await rm(otherDir, { recursive: true, force: true });
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

/**
 * A database that is down at start-up: the daemon serves, and checks the key when the schema becomes
 * ready; a wrong key then stops the process with 78. Needs a database server that can go away (a proxy
 * in front of PostgreSQL), so it runs wherever a PostgreSQL server answers, whichever backend the suite uses.
 */
const postgres = await postgresAnswers();

describe.skipIf(!postgres)('the secrets encryption key, when the database comes up after start-up', () => {
  // A name of its own, outside the run's copies: it outlives a test file's copy.
  const database = `svc_keytest_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: POSTGRES_SERVER_URL, pool: { min: 0, max: 1 } });
  const upstream = new URL(POSTGRES_SERVER_URL);
  const proxy = new TcpProxy({ host: upstream.hostname, port: Number(upstream.port || 5432) });
  let proxied: string;
  let dataDir: string;

  beforeAll(async () => {
    await admin.raw(`CREATE DATABASE ${database}`);
    dataDir = await mkdtemp(join(tmpdir(), 'svc-test-keydefer-'));
    await proxy.start();
    const url = new URL(withDatabase(POSTGRES_SERVER_URL, database));
    url.host = `127.0.0.1:${proxy.port}`;
    proxied = url.toString();
    // The first start (database up) records key A.
    const config = loadConfig({
      SERVICE_PORT: '0',
      SERVICE_LOG_LEVEL: 'silent',
      SERVICE_DATABASE_URL: proxied,
      SERVICE_DATA_DIR: dataDir,
      SERVICE_SECRETS_ENCRYPTION_KEY: KEY_A,
    });
    await (await startDaemon(config, createLogger('silent'))).stop();
  });

  afterAll(async () => {
    await proxy.stop();
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  const daemonEnv = (key: string) => ({
    SERVICE_PORT: '0',
    SERVICE_HOST: '127.0.0.1',
    SERVICE_LOG_LEVEL: 'info',
    SERVICE_AUTH_DISABLED: 'true',
    SERVICE_DATABASE_URL: proxied,
    SERVICE_DATA_DIR: dataDir,
    SERVICE_SECRETS_ENCRYPTION_KEY: key,
  });

  it('exits 78 once the database answers, when the key is wrong', async () => {
    await proxy.stop();
    const child = spawnTs('src/daemon/main.ts', [], daemonEnv(KEY_B));
    const { finished, output } = collect(child);
    try {
      await waitForListening(child, 90_000);
      await proxy.start();
      const { code } = await finished;
      expect(code).toBe(78);
      const fatal = output()
        .stdout.trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { level: string; variables?: string[] })
        .find((line) => line.level === 'fatal');
      expect(fatal?.variables).toEqual(['SERVICE_SECRETS_ENCRYPTION_KEY']);
    } finally {
      child.kill('SIGKILL');
      await proxy.start().catch(() => undefined);
    }
  }, 120_000);

  it('serves secrets once the database answers, when the key is right', async () => {
    await proxy.stop();
    const child = spawnTs('src/daemon/main.ts', [], daemonEnv(KEY_A));
    const { finished } = collect(child);
    try {
      const url = await waitForListening(child, 90_000);
      await proxy.start();
      let status = 0;
      for (let attempt = 0; attempt < 100 && status !== 201; attempt += 1) {
        const response = await fetch(`${url}/secrets`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: `late-${attempt}`, values: { token: 'x' } }),
        });
        status = response.status;
        if (status !== 201) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(201);
    } finally {
      child.kill('SIGTERM');
      expect((await finished).code).toBe(0);
    }
  }, 120_000);
});
