import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/daemon/config/config.js';
import { startDaemon, type DaemonOptions, type RunningDaemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/daemon/logging/logger.js';
import { freshDatabase } from './database.js';

export interface TestDaemon extends RunningDaemon {
  /** Stops the daemon and removes its database. */
  close(): Promise<void>;
}

/** A real daemon on a random loopback port, over its own copy of the migrated template. */
export async function startTestDaemon(
  env: Record<string, string> = {},
  options: Omit<DaemonOptions, 'database'> = {},
): Promise<TestDaemon> {
  const dataDir = await mkdtemp(join(tmpdir(), 'svc-test-data-'));
  const config = loadConfig({
    SERVICE_PORT: '0',
    SERVICE_HOST: '127.0.0.1',
    SERVICE_LOG_LEVEL: 'silent',
    SERVICE_DATA_DIR: dataDir,
    SERVICE_CHECK_RESPONSES: 'true',
    ...env,
  });
  const fresh = await freshDatabase();
  const daemon = await startDaemon(config, createLogger(config.logLevel), { ...options, database: fresh.db });
  return {
    ...daemon,
    close: async () => {
      await daemon.stop();
      await fresh.location.drop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
