import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/daemon/config/config.js';
import { startDaemon } from '../src/daemon/daemon.js';
import type { Database } from '../src/daemon/db/database.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { freshDatabase } from './helpers/database.js';

/**
 * A start that fails after the database opened stops what it had started (the syncs' periodic reloads
 * and LISTEN sessions, the migration retry) with the sequence a graceful stop ends with, and leaves a
 * database handed in open for its caller.
 */
let taken: Server;
let fresh: { db: Database; close(): Promise<void> };
beforeAll(async () => {
  taken = createServer().listen(0, '127.0.0.1');
  await once(taken, 'listening');
  fresh = await freshDatabase();
});
afterAll(async () => {
  taken?.close();
  await fresh?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A refresh period no other timer of the process uses, so the syncs' periodic reloads can be told apart. */
const REFRESH_SECONDS = 29;

function config(port: number) {
  return loadConfig({
    SERVICE_HOST: '127.0.0.1',
    SERVICE_PORT: String(port),
    SERVICE_LOG_LEVEL: 'silent',
    SERVICE_AUTH_DISABLED: 'true',
    SERVICE_PERMISSION_REFRESH_SECONDS: String(REFRESH_SECONDS),
  });
}

/** The syncs' periodic reloads set from now on, and which of them were cleared. */
function watchReloadTimers(): { started: unknown[]; stopped: Set<unknown> } {
  const started: unknown[] = [];
  const stopped = new Set<unknown>();
  const setInterval = globalThis.setInterval;
  const clearInterval = globalThis.clearInterval;
  vi.spyOn(globalThis, 'setInterval').mockImplementation(((callback: () => void, ms: number) => {
    const timer = setInterval(callback, ms);
    if (ms === REFRESH_SECONDS * 1000) started.push(timer);
    return timer;
  }) as typeof globalThis.setInterval);
  vi.spyOn(globalThis, 'clearInterval').mockImplementation((timer) => {
    stopped.add(timer);
    clearInterval(timer);
  });
  return { started, stopped };
}

describe('a start that fails', () => {
  it('on a port already taken rejects, having stopped every sync it started, with the database handed in still open', async () => {
    const reloads = watchReloadTimers();
    const port = (taken.address() as AddressInfo).port;
    await expect(startDaemon(config(port), createLogger('silent'), { database: fresh.db })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(reloads.started.length).toBeGreaterThan(0);
    expect(reloads.started.filter((timer) => !reloads.stopped.has(timer))).toEqual([]);
    expect((await fresh.db.knex.raw('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('leaves the database fit for a daemon that starts, serves and stops', async () => {
    const daemon = await startDaemon(config(0), createLogger('silent'), { database: fresh.db });
    expect((await fetch(`${daemon.url}/ready`)).status).toBe(200);
    await daemon.stop();
  });
});
