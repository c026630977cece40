import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import pg from 'pg';
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

/** A plain proxy to PostgreSQL that counts the sessions opened through it and those still open. */
async function countingProxy(): Promise<{ server: Server; url: string; opened: () => number; open: () => number }> {
  let opened = 0;
  let open = 0;
  const server = createServer((client) => {
    opened += 1;
    open += 1;
    const target = connect(Number(upstream.port || 5432), upstream.hostname);
    let closed = false;
    const cut = () => {
      if (!closed) open -= 1;
      closed = true;
      client.destroy();
      target.destroy();
    };
    for (const side of [client, target]) {
      side.on('error', cut);
      side.on('close', cut);
    }
    client.pipe(target);
    target.pipe(client);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = new URL(POSTGRES_SERVER_URL);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url: url.toString(), opened: () => opened, open: () => open };
}

const until = async (condition: () => boolean): Promise<void> => {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 5000) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

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
    const listener = new NotificationListener({ connection: { connectionString: proxy.url }, log: createLogger('silent') });
    const listening = listener.listen('svc_test_dropped', (signal) => void (signal === 'connected' && (connected += 1)));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await listening.stop();
    // Each session did LISTEN before it was dropped.
    expect(connected).toBeGreaterThanOrEqual(2);
    // Backing off (100, 200, 400, then 500 ms) allows at most six sessions in two seconds; an immediate
    // reconnection after each drop makes one every few milliseconds.
    expect(proxy.sessions()).toBeLessThanOrEqual(8);
  });

  it('listens on every channel over one session, tells each subscriber only its own, and closes with the last', async () => {
    const counting = await countingProxy();
    const notify = new pg.Client({ connectionString: POSTGRES_SERVER_URL });
    await notify.connect();
    try {
      const listener = new NotificationListener({ connection: { connectionString: counting.url }, log: createLogger('silent') });
      const heard: string[] = [];
      const subscribe = (channel: string, who: string) =>
        listener.listen(channel, (signal, payload) => void heard.push(`${who} ${signal}${payload === undefined ? '' : ` ${payload}`}`));
      const a = subscribe('svc_test_a', 'a');
      const b = subscribe('svc_test_b', 'b');
      await until(() => heard.filter((h) => h.endsWith('connected')).length === 2);
      // A subscriber joining the open session is told it is connected once its channel is listened on.
      const a2 = subscribe('svc_test_a', 'a2');
      await until(() => heard.includes('a2 connected'));
      expect(counting.opened()).toBe(1);

      await notify.query(`NOTIFY svc_test_a, 'one'`);
      await notify.query(`NOTIFY svc_test_b, 'two'`);
      await until(() => heard.includes('b notification two'));
      expect(heard.filter((h) => h.includes('notification')).sort()).toEqual([
        'a notification one',
        'a2 notification one',
        'b notification two',
      ]);

      await b.stop();
      await a.stop();
      await notify.query(`NOTIFY svc_test_b, 'unheard'`);
      await notify.query(`NOTIFY svc_test_a, 'three'`);
      await until(() => heard.includes('a2 notification three'));
      expect(heard.some((h) => h.includes('unheard') || h === 'a notification three')).toBe(false);
      expect(counting.open()).toBe(1);

      await a2.stop();
      await until(() => counting.open() === 0);
      expect(counting.opened()).toBe(1);
    } finally {
      await notify.end();
      counting.server.close();
    }
  });

  it('closes its session with the database, subscriptions left or not', async () => {
    const counting = await countingProxy();
    try {
      const listener = new NotificationListener({ connection: { connectionString: counting.url }, log: createLogger('silent') });
      let connected = false;
      listener.listen('svc_test_left', (signal) => void (signal === 'connected' && (connected = true)));
      await until(() => connected && counting.open() === 1);
      await listener.close();
      await until(() => counting.open() === 0);
      expect(counting.opened()).toBe(1);
    } finally {
      counting.server.close();
    }
  });
});
