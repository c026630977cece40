import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitCommand, remoteFailure } from '../src/daemon/domains/git/git-command.js';
import { remoteCredentials } from '../src/daemon/domains/git/git-credentials.js';
import type { GitRepositoryRow } from '../src/daemon/domains/git/git-repositories-repo.js';
import { checkedRemote } from '../src/daemon/domains/git/remote-address.js';
import { AddressPolicy } from '../src/shared/net/address-policy.js';
import type { SecretResolver } from '../src/daemon/domains/secrets/secret-resolver.js';

/** The hardened git runner and the credentials' hand-over, without a daemon. */
let dir: string;
let silent: Server;
const sockets: Socket[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-git-runner-'));
  // Accepts connections and never answers: a remote that hangs.
  silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

const KEY = '-----BEGIN OPENSSH PRIVATE KEY-----\nnot-a-real-key-but-secret-0123\n-----END OPENSSH PRIVATE KEY-----';
const resolver = { resolveReference: async () => KEY } as unknown as SecretResolver;
const row = (auth: Partial<GitRepositoryRow>) =>
  ({
    id: 'r',
    org_id: 'o',
    auth_type: 'none',
    auth_username: null,
    secret_ref: "{{ secret('k') }}",
    known_hosts: null,
    ...auth,
  }) as GitRepositoryRow;

describe('the git runner', () => {
  it('kills a command past its time limit (reason timeout)', async () => {
    const git = new GitCommand({ timeoutMs: 300, allowFile: false, home: dir });
    const { port } = silent.address() as { port: number };
    const output = await git.run({ args: ['ls-remote', '--', `http://127.0.0.1:${port}/flows.git`] });
    expect(output.timedOut).toBe(true);
    expect(remoteFailure(output)).toBe('timeout');
  });

  it('refuses ext:: even when asked directly: no program runs', async () => {
    const git = new GitCommand({ timeoutMs: 30_000, allowFile: true, home: dir });
    const marker = join(dir, 'pwned');
    const output = await git.run({ args: ['ls-remote', '--', `ext::sh -c touch% ${marker}`] });
    expect(output.code).not.toBe(0);
    await expect(stat(marker)).rejects.toThrow();
  });

  it('refuses file:// unless allowed', async () => {
    const git = new GitCommand({ timeoutMs: 30_000, allowFile: false, home: dir });
    const output = await git.run({ args: ['ls-remote', '--', `file://${dir}`] });
    expect(output.code).not.toBe(0);
  });
});

describe('credentials', () => {
  it('hands a token over as an extra header in the environment, never a URL or argument', async () => {
    const credentials = await remoteCredentials(resolver, row({ auth_type: 'token', auth_username: 'ci' }), dir, []);
    expect(credentials.env).toEqual({
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.extraHeader',
      GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`ci:${KEY}`).toString('base64')}`,
    });
  });

  it('writes an SSH key to a 0600 file named by GIT_SSH_COMMAND, removed afterwards', async () => {
    const credentials = await remoteCredentials(
      resolver,
      row({ auth_type: 'ssh_key', known_hosts: 'git.example.test ssh-ed25519 AAAA' }),
      dir,
      [],
    );
    const command = credentials.env.GIT_SSH_COMMAND!;
    expect(command).not.toContain('secret-0123');
    expect(command).toContain('StrictHostKeyChecking=yes');
    const keyFile = /'-i' '([^']+)'/.exec(command)![1]!;
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    await credentials.dispose();
    await expect(stat(keyFile)).rejects.toThrow();
  });
});

/** The ssh client is what is pinned: without one there is nothing to show. */
const noSsh = spawnSync('ssh', ['-V']).error !== undefined;

describe.skipIf(noSsh)('ssh pinned to the address the outbound guard checked (skipped without an ssh client)', () => {
  /** What ssh sent to a loopback listener posing as the remote (its version banner comes first). */
  async function sshReaches(pin: readonly string[], port: number, seen: Buffer[]): Promise<boolean> {
    const git = new GitCommand({ timeoutMs: 10_000, allowFile: false, home: dir });
    const credentials = await remoteCredentials(resolver, row({ auth_type: 'none' }), dir, pin);
    await git.run({ args: ['ls-remote', '--', `ssh://git@${NAME}:${port}/flows.git`], env: credentials.env });
    return Buffer.concat(seen).toString('latin1').startsWith('SSH-2.0-');
  }
  /** A name that resolves nowhere (RFC 2606): only the pin can bring ssh to the listener. */
  const NAME = 'git.svc-pin.invalid';

  it('connects to the checked address although the name resolves nowhere, and not without the pin', async () => {
    const seen: Buffer[] = [];
    const listener = createServer((socket) => {
      socket.on('data', (data) => {
        seen.push(data);
        socket.destroy();
      });
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as AddressInfo).port;
    try {
      expect(await sshReaches([], port, seen)).toBe(false);
      const pin = await checkedRemote(`ssh://git@${NAME}:${port}/flows.git`, new AddressPolicy(['127.0.0.0/8']), async () => ['127.0.0.1']);
      expect(pin).toEqual({ config: [], ssh: ['-o', `HostKeyAlias=[${NAME}]:${port}`, '-o', 'HostName=127.0.0.1'] });
      expect(await sshReaches(pin.ssh, port, seen)).toBe(true);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
