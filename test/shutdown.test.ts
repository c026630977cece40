import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyTemplate, type DatabaseLocation } from './helpers/database.js';
import { collect, spawnTs, waitForListening } from './helpers/spawn.js';

let location: DatabaseLocation;
beforeAll(async () => {
  location = await copyTemplate();
});
afterAll(() => location?.drop());

/** Sends a request whose body arrives in two parts, so the test controls when it is still in flight. */
function slowRequest(url: URL) {
  const socket = connect(Number(url.port), url.hostname);
  const body = '{"name":"slow"}';
  let response = '';
  socket.on('data', (chunk) => (response += chunk.toString()));
  const ended = new Promise<string>((resolve) => socket.on('close', () => resolve(response)));
  socket.write(
    `POST /orgs HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
  );
  return { finish: () => socket.write(body.slice(5)), ended };
}

/** The complete responses in what a connection received: status and headers, and a body of its Content-Length. */
function completeResponses(received: string): { status: number; headers: string }[] {
  const responses: { status: number; headers: string }[] = [];
  let rest = received;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return responses;
    const head = rest.slice(0, end);
    const length = Number(/^content-length: *(\d+)$/im.exec(head)?.[1] ?? 0);
    if (Buffer.byteLength(rest.slice(end + 4)) < length) return responses;
    responses.push({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), headers: head.toLowerCase() });
    rest = rest.slice(end + 4 + length);
  }
}

/** A kept-alive connection answered once, so idle in the daemon's eyes until `send` asks again on it. */
async function idleConnection(url: URL) {
  const socket = connect(Number(url.port), url.hostname);
  const request = `GET /health HTTP/1.1\r\nHost: ${url.host}\r\n\r\n`;
  let received = '';
  let error: Error | undefined;
  socket.on('data', (chunk) => (received += chunk.toString()));
  socket.on('error', (e) => (error = e));
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.write(request);
  while (completeResponses(received).length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
  return {
    send: () => socket.write(request),
    closed: closed.then(() => ({ responses: completeResponses(received), error })),
  };
}

describe('graceful shutdown', () => {
  it('on SIGTERM lets an in-flight request complete, refuses new connections, and exits 0', async () => {
    const child = spawnTs('src/daemon/main.ts', [], {
      ...location.env,
      SERVICE_PORT: '0',
      SERVICE_LOG_LEVEL: 'info',
      SERVICE_AUTH_DISABLED: 'true',
    });
    const { finished } = collect(child);
    const url = new URL(await waitForListening(child));

    const inFlight = slowRequest(url);
    await new Promise((resolve) => setTimeout(resolve, 200));
    child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 300));

    const refused = await new Promise<boolean>((resolve) => {
      const probe = connect(Number(url.port), url.hostname);
      probe.on('connect', () => {
        probe.destroy();
        resolve(false);
      });
      probe.on('error', () => resolve(true));
    });
    expect(refused).toBe(true);

    inFlight.finish();
    const response = await inFlight.ended;
    // A complete answer (the handler's own, whatever it decides about the body), not a cut connection or a 5xx.
    expect(response).toMatch(/^HTTP\/1\.1 [1-4]\d\d /);
    expect(response).toContain('"request_id"');

    const { code } = await finished;
    expect(code).toBe(0);
  });

  it('on SIGTERM during start-up finishes starting, then stops as gracefully, exit 0', async () => {
    // A database the daemon has not started on: its first start writes the secrets key, before it listens.
    const fresh = await copyTemplate();
    const child = spawnTs('src/daemon/main.ts', [], {
      ...fresh.env,
      SERVICE_PORT: '0',
      SERVICE_LOG_LEVEL: 'info',
      SERVICE_AUTH_DISABLED: 'true',
    });
    const { finished, output } = collect(child);
    while (!output().stdout.includes('\n') && child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 2));
    expect(output().stdout).not.toContain('svcd listening');
    child.kill('SIGTERM');
    const ended = await finished;
    expect({ code: ended.code, signal: ended.signal }).toEqual({ code: 0, signal: null });
    expect(ended.stdout).toContain('"msg":"svcd stopped"');
    await fresh.drop();
  });

  it('answers requests sent on kept-alive connections just after SIGTERM, with Connection: close, and resets none', async () => {
    const child = spawnTs('src/daemon/main.ts', [], {
      ...location.env,
      SERVICE_PORT: '0',
      SERVICE_LOG_LEVEL: 'info',
      SERVICE_AUTH_DISABLED: 'true',
    });
    const { finished } = collect(child);
    const url = new URL(await waitForListening(child));
    const connections = await Promise.all(Array.from({ length: 20 }, () => idleConnection(url)));

    child.kill('SIGTERM');
    // Spread over the first 200 ms, as clients that did not see the signal go on sending.
    await Promise.all(connections.map((c, i) => new Promise((resolve) => setTimeout(() => resolve(c.send()), i * 10))));

    const outcomes = await Promise.all(connections.map((c) => c.closed));
    for (const { responses, error } of outcomes) {
      expect(error).toBeUndefined();
      expect(responses.map((r) => r.status)).toEqual([200, 200]);
    }
    // Those that arrived while draining were told the connection ends with them.
    expect(outcomes.some(({ responses }) => responses[1]!.headers.includes('connection: close'))).toBe(true);
    expect((await finished).code).toBe(0);
  });
});
