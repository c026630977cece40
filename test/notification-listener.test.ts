import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationListener } from '../src/daemon/db/notification-listener.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { postgresAnswers, POSTGRES_SERVER_URL } from './helpers/postgres-server.js';

const available = await postgresAnswers();
const upstream = new URL(POSTGRES_SERVER_URL);

/**
 * A proxy to PostgreSQL that cuts every session just after its LISTEN is answered, as a server or
 * pooler that drops each session would, and counts the sessions.
 */
async function droppingProxy(): Promise<{ server: Server; url: string; sessions: () => number }> {
  let sessions = 0;
  const server = createServer((client) => {
    sessions += 1;
    const target = connect(Number(upstream.port || 5432), upstream.hostname);
    let listened = false;
    const cut = () => {
      client.destroy();
      target.destroy();
    };
    client.on('error', cut);
    target.on('error', cut);
    client.on('data', (chunk: Buffer) => {
      if (chunk.includes('LISTEN')) listened = true;
      target.write(chunk);
    });
    target.on('data', (chunk: Buffer) => {
      client.write(chunk);
      if (listened) setTimeout(cut, 10);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = new URL(POSTGRES_SERVER_URL);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url: url.toString(), sessions: () => sessions };
}

describe.skipIf(!available)('NotificationListener', () => {
  let proxy: Awaited<ReturnType<typeof droppingProxy>>;
  beforeAll(async () => {
    proxy = await droppingProxy();
  });
  afterAll(() => {
    proxy?.server.close();
  });

  it('keeps backing off, rather than reconnecting in a loop, when every session is dropped just after it connects', async () => {
    let connected = 0;
    const listener = new NotificationListener({
      connection: { connectionString: proxy.url },
      channel: 'svc_test_dropped',
      onSignal: (signal) => void (signal === 'connected' && (connected += 1)),
      log: createLogger('silent'),
    });
    listener.start();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await listener.stop();
    // Each session did LISTEN before it was dropped.
    expect(connected).toBeGreaterThanOrEqual(2);
    // Backing off (100, 200, 400, then 500 ms) allows at most six sessions in two seconds; an immediate
    // reconnection after each drop makes one every few milliseconds.
    expect(proxy.sessions()).toBeLessThanOrEqual(8);
  });
});
