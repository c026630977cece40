import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy } from '../src/shared/net/address-policy.js';
import { OutboundError, OutboundHttp, type OutboundFailure } from '../src/shared/net/outbound-http.js';
import { parseNetworkList, SettingError } from '../src/daemon/config/parsers.js';

let server: Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/hello') return void res.end('hi');
    if (req.url === '/to-hello') return void res.writeHead(302, { location: '/hello' }).end();
    if (req.url === '/to-metadata') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
    if (req.url === '/big') return void res.end(Buffer.alloc(64 * 1024, 'x'));
    if (req.url === '/echo') return void req.pipe(res);
    // '/silent': never answers, for the time limit.
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const guard = (allowedNetworks: string[] = ['127.0.0.0/8'], timeoutMs = 2000) => new OutboundHttp({ allowedNetworks, timeoutMs });

async function reason(promise: Promise<unknown>): Promise<OutboundFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OutboundError);
  return (error as OutboundError).reason;
}

describe('the address policy', () => {
  const policy = new AddressPolicy([]);
  it.each(['8.8.8.8', '2606:4700::1'])('lets the public address %s through', (address) => {
    expect(policy.allows(address)).toBe(true);
  });
  it.each([
    '127.0.0.1',
    '::1',
    '::ffff:127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    'fd00::1',
    '169.254.169.254',
    'fe80::1',
    '100.64.0.1',
    '0.0.0.0',
    '::',
    '255.255.255.255',
    '224.0.0.1',
    '2002::1',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(policy.allows(address)).toBe(false);
  });
  it('lets a listed network through, and only it', () => {
    const allowing = new AddressPolicy(['127.0.0.0/8', 'fd00::/8']);
    expect(allowing.allows('127.0.0.2')).toBe(true);
    expect(allowing.allows('::ffff:127.0.0.1')).toBe(true);
    expect(allowing.allows('fd12::1')).toBe(true);
    expect(allowing.allows('10.0.0.1')).toBe(false);
  });
});

describe('SERVICE_OUTBOUND_ALLOWED_NETWORKS', () => {
  it('reads a comma-separated list, empty as none', () => {
    expect(parseNetworkList('127.0.0.0/8, ::1')).toEqual(['127.0.0.0/8', '::1']);
    expect(parseNetworkList('')).toEqual([]);
  });
  it.each(['10.1/8', '127.0.0.1/8', 'localhost'])('refuses %s', (entry) => {
    expect(() => parseNetworkList(entry)).toThrow(SettingError);
  });
});

describe('OutboundHttp', () => {
  it('answers a request to an allowed address', async () => {
    const response = await guard().request(`${base}/hello`);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('hi');
  });

  it('sends a body and reads JSON back', async () => {
    const response = await guard().request(`${base}/echo`, { method: 'POST', body: '{"a":1}' });
    expect(await response.json()).toEqual({ a: 1 });
  });

  it('refuses loopback by default, by literal and by name, without connecting', async () => {
    const before = hits.length;
    const port = new URL(base).port;
    expect(await reason(guard([]).request(`${base}/hello`))).toBe('address_not_allowed');
    expect(await reason(guard([]).request(`http://localhost:${port}/hello`))).toBe('address_not_allowed');
    expect(await reason(guard([]).request(`http://[::ffff:127.0.0.1]:${port}/hello`))).toBe('address_not_allowed');
    expect(hits.length).toBe(before);
  });

  it.each([
    ['file:///etc/passwd', 'scheme_not_allowed'],
    ['ftp://127.0.0.1/', 'scheme_not_allowed'],
    ['gopher://127.0.0.1/', 'scheme_not_allowed'],
    ['not a url', 'malformed_url'],
  ] as const)('refuses %s', async (url, expected) => {
    expect(await reason(guard().request(url))).toBe(expected);
  });

  it('answers a redirect as it is unless asked to follow', async () => {
    const response = await guard().request(`${base}/to-hello`);
    expect(response.status).toBe(302);
    const followed = await guard().request(`${base}/to-hello`, { maxRedirects: 2 });
    expect(followed.status).toBe(200);
    expect(followed.url).toBe(`${base}/hello`);
  });

  it('checks every hop of a redirect again: link-local metadata is refused', async () => {
    expect(await reason(guard().request(`${base}/to-metadata`, { maxRedirects: 3 }))).toBe('address_not_allowed');
  });

  it('stops a redirect loop', async () => {
    expect(await reason(guard().request(`${base}/loop`, { maxRedirects: 3 }))).toBe('too_many_redirects');
  });

  it('caps the answer it reads', async () => {
    const response = await guard().request(`${base}/big`, { maxResponseBytes: 1024 });
    expect(await reason(response.text())).toBe('response_too_large');
  });

  it('gives up on a target that does not answer in time', async () => {
    expect(await reason(guard(['127.0.0.0/8'], 200).request(`${base}/silent`))).toBe('timeout');
  });

  it('says when nothing listens', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as AddressInfo).port;
    closed.close();
    expect(await reason(guard().request(`http://127.0.0.1:${port}/`))).toBe('connect_failed');
  });
});
