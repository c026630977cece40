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
  socket.write(`POST /orgs HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`);
  return { finish: () => socket.write(body.slice(5)), ended };
}

describe('graceful shutdown', () => {
  it('on SIGTERM lets an in-flight request complete, refuses new connections, and exits 0', async () => {
    const child = spawnTs('src/daemon/main.ts', [], { ...location.env, SERVICE_PORT: '0', SERVICE_LOG_LEVEL: 'info', SERVICE_AUTH_DISABLED: 'true' });
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
});
