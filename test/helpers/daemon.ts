import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/daemon/config/config.js';
import { startDaemon, type DaemonOptions, type RunningDaemon } from '../../src/daemon/daemon.js';
import { createLogger, type Logger } from '../../src/daemon/logging/logger.js';
import { freshDatabase, type DatabaseLocation } from './database.js';

export interface TestDaemon extends RunningDaemon {
  /** Where its database is: another daemon may be started on it (`startTestDaemonOn`). */
  readonly location: DatabaseLocation;
  /** Stops the daemon and removes its database. */
  close(): Promise<void>;
}

function testConfig(dataDir: string, env: Record<string, string>) {
  return loadConfig({
    SERVICE_PORT: '0',
    SERVICE_HOST: '127.0.0.1',
    SERVICE_LOG_LEVEL: 'silent',
    SERVICE_DATA_DIR: dataDir,
    SERVICE_CHECK_RESPONSES: 'true',
    // The scheduler loop's queries would land among those a test counts; schedule tests drive fires themselves or turn it on.
    SERVICE_SCHEDULER_ENABLED: 'false',
    ...env,
  });
}

/** A real daemon on a random loopback port, over its own copy of the migrated template; `log` for a test that reads its log. */
export async function startTestDaemon(
  env: Record<string, string> = {},
  options: Omit<DaemonOptions, 'database'> = {},
  log?: Logger,
): Promise<TestDaemon> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-test-data-'));
  const config = testConfig(dataDir, env);
  const fresh = await freshDatabase();
  const daemon = await startDaemon(config, log ?? createLogger(config.logLevel), { ...options, database: fresh.db });
  return {
    ...daemon,
    location: fresh.location,
    close: async () => {
      await daemon.stop();
      await fresh.location.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A second daemon on another daemon's database (PostgreSQL: PGlite's directory has one user), with its
 * own connections and listener, as a second instance of a deployment (both need the same
 * SERVICE_SECRETS_ENCRYPTION_KEY: each test daemon otherwise makes its own). `close` stops it and leaves
 * the database to its first daemon.
 */
export async function startTestDaemonOn(
  location: DatabaseLocation,
  env: Record<string, string> = {},
  options: Omit<DaemonOptions, 'database'> = {},
): Promise<TestDaemon> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-test-data-'));
  const config = testConfig(dataDir, env);
  const daemon = await startDaemon(config, createLogger(config.logLevel), { ...options, database: await location.open() });
  return {
    ...daemon,
    location,
    close: async () => {
      await daemon.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
