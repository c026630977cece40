import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddressPolicy } from '../src/shared/net/address-policy.js';
import { checkedRemote, remoteEndpoint, type Resolve } from '../src/daemon/domains/git/remote-address.js';
import { call, startWorld, type World } from './helpers/webhooks-fixtures.js';

const PUBLIC = '93.184.216.34';
const publicOnly = new AddressPolicy([]);
const answers =
  (table: Record<string, readonly string[]>): Resolve =>
  async (host) => {
    const found = table[host];
    if (!found) throw new Error(`ENOTFOUND ${host}`);
    return found;
  };
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { code?: string; extensions?: { reason?: string } }) => ({ code: error.code, reason: error.extensions?.reason }),
  );

describe('the outbound guard of git remotes', () => {
  it('reads the host, port and transport of every URL form the daemon accepts', () => {
    expect(remoteEndpoint('https://git.example.test/team/flows.git')).toEqual({ host: 'git.example.test', port: 443, transport: 'http' });
    expect(remoteEndpoint('http://[::1]:8080/flows.git')).toEqual({ host: '::1', port: 8080, transport: 'http' });
    expect(remoteEndpoint('ssh://git@git.example.test:2222/flows.git')).toEqual({ host: 'git.example.test', port: 2222, transport: 'ssh' });
    expect(remoteEndpoint('git@10.1.2.3:team/flows.git')).toEqual({ host: '10.1.2.3', port: 22, transport: 'ssh' });
    expect(remoteEndpoint('file:///srv/git/flows.git')).toBeUndefined();
  });

  it('pins git to the public address it checked, and refuses one not public unless allowed', async () => {
    const resolve = answers({
      'git.example.test': [PUBLIC],
      'inside.example.test': ['10.0.0.5'],
      'mixed.example.test': [PUBLIC, '169.254.169.254'],
    });
    expect(await checkedRemote('https://git.example.test/flows.git', publicOnly, resolve)).toEqual({
      config: ['-c', `http.curloptResolve=git.example.test:443:${PUBLIC}`],
      ssh: [],
    });
    // ssh connects to the address, and checks the host key under the name (with its port, as known_hosts keeps it).
    expect(await checkedRemote('ssh://git@git.example.test/flows.git', publicOnly, resolve)).toEqual({
      config: [],
      ssh: ['-o', 'HostKeyAlias=git.example.test', '-o', `HostName=${PUBLIC}`],
    });
    expect(await checkedRemote('git@git.example.test:team/flows.git', publicOnly, resolve)).toEqual({
      config: [],
      ssh: ['-o', 'HostKeyAlias=git.example.test', '-o', `HostName=${PUBLIC}`],
    });
    expect((await checkedRemote('ssh://git@git.example.test:2222/flows.git', publicOnly, resolve)).ssh).toEqual([
      '-o',
      'HostKeyAlias=[git.example.test]:2222',
      '-o',
      `HostName=${PUBLIC}`,
    ]);
    for (const url of [
      'https://inside.example.test/flows.git',
      'https://mixed.example.test/flows.git',
      'http://127.0.0.1:8080/flows.git',
      'http://[::1]/flows.git',
      'git@10.1.2.3:team/flows.git',
    ]) {
      expect(await refusal(checkedRemote(url, publicOnly, resolve)), url).toEqual({
        code: 'git_remote_failed',
        reason: 'address_not_allowed',
      });
    }
    expect(await checkedRemote('https://inside.example.test/flows.git', new AddressPolicy(['10.0.0.0/8']), resolve)).toEqual({
      config: ['-c', 'http.curloptResolve=inside.example.test:443:10.0.0.5'],
      ssh: [],
    });
    expect(await refusal(checkedRemote('https://nowhere.example.test/flows.git', publicOnly, resolve))).toEqual({
      code: 'git_remote_failed',
      reason: 'unreachable',
    });
    expect(await checkedRemote('file:///srv/git/flows.git', publicOnly, resolve)).toEqual({ config: [], ssh: [] });
  });
});

describe('a repository on a loopback remote, with the default outbound settings', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({});
  });
  afterAll(() => world?.close());

  it('is stored, but every operation on its remote is refused before git runs (address_not_allowed)', async () => {
    const created = await call(world, 'dave', 'POST', '/git-repositories', { name: 'inside', url: 'http://127.0.0.1:9/flows.git' });
    expect(created.status).toBe(201);
    const tested = await call(world, 'dave', 'POST', `/git-repositories/${created.body.id}/test-connection`, {});
    expect(tested).toMatchObject({ status: 200, body: { ok: false, reason: 'address_not_allowed' } });
    const tree = await call(world, 'carol', 'GET', `/git-repositories/${created.body.id}/tree`);
    expect(tree).toMatchObject({ status: 502, body: { code: 'git_remote_failed', reason: 'address_not_allowed' } });
  });
});
