import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { GracefulClose } from '../src/daemon/http/graceful-close.js';
import { createLogger } from '../src/daemon/logging/logger.js';

/** Resolves with `value` after `ms`, for a bounded wait. */
const after = <T>(ms: number, value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

describe('GracefulClose', () => {
  it('ends a kept-alive connection whose answer went out before the stop once it is finished, not at the keep-alive timeout', async () => {
    const server = createServer();
    const connections = new GracefulClose(server);
    let finish: () => void = () => {};
    // Headers (keep-alive) sent at once, the body later: as a stream begun before the stop.
    server.on(
      'request',
      connections.track((_req, res) => {
        res.writeHead(200, { 'content-length': '2' });
        res.write('a');
        finish = () => res.end('b');
      }),
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let received = '';
    client.on('data', (chunk) => (received += chunk.toString()));
    const clientClosed = once(client, 'close').then(() => 'closed');
    client.write('GET / HTTP/1.1\r\nHost: test\r\n\r\n');
    while (!received.includes('\r\n\r\na')) await after(5, undefined);

    const stopped = connections.close(10_000, createLogger('silent')).then(() => 'stopped');
    finish();
    // Node's keep-alive timeout (5 s) would end it otherwise; a generous bound below that.
    expect(await Promise.race([clientClosed, after(3000, 'still open')])).toBe('closed');
    expect(await Promise.race([stopped, after(1000, 'still stopping')])).toBe('stopped');
    expect(received).toMatch(/\r\n\r\nab$/);
    expect(received.toLowerCase()).toContain('connection: keep-alive');
  });
});
