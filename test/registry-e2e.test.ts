import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, ok, runSvc } from './helpers/cli.js';
import { seedUser } from './helpers/seed.js';
import {
  basic,
  registryToken,
  revoke,
  startRegistryWorld,
  PROXY_SECRET,
  type RegistryToken,
  type RegistryWorld,
} from './helpers/registry-fixtures.js';
import { fetchBinaries, freePort, startRegistryStack, type RegistryStack } from './registry-e2e/harness.js';
import { writeOciLayout } from './registry-e2e/oci-layout.js';

/**
 * A real push and pull: Debian's docker-registry behind Debian's nginx, whose auth_request asks this
 * daemon, and skopeo pushing an image the test writes; then the image routes over the same registry.
 * Skipped, saying why, when the binaries cannot be had (test/registry-e2e/fetch-binaries.sh).
 */
const binaries = await fetchBinaries();
if ('skip' in binaries) console.warn(`test/registry-e2e.test.ts skipped: ${binaries.skip}`);

describe.skipIf('skip' in binaries)('registry end to end (nginx auth_request -> svcd, docker-registry, skopeo)', () => {
  let world: RegistryWorld;
  let stack: RegistryStack;
  let token: RegistryToken;
  let image: string;
  const as: Record<string, string> = {};

  const OWN = 'orgs/acme/docker.io/library/hello';
  const SHARED = 'orgs/commons/docker.io/library/base';
  const skopeoCopy = (from: string, to: string, password: string) =>
    stack.skopeo([
      'copy',
      '--src-tls-verify=false',
      '--dest-tls-verify=false',
      '--src-creds',
      `step:${password}`,
      '--dest-creds',
      `step:${password}`,
      from,
      to,
    ]);
  const viaProxy = (repository: string, tag = 'v1') => `docker://${stack.proxyHost}/${repository}:${tag}`;
  const api = async (who: string, method: string, path: string) => {
    const response = await fetch(`${world.daemon.url}${path}`, { method, headers: { authorization: as[who]!, 'x-org-id': 'acme' } });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  };

  beforeAll(async () => {
    const { root } = binaries as { root: string };
    const registryPort = await freePort();
    world = await startRegistryWorld({ SERVICE_REGISTRY_URL: `http://127.0.0.1:${registryPort}` });
    const daemonPort = new URL(world.daemon.url).port;
    stack = await startRegistryStack(
      { root },
      {
        authorizeUpstream: `127.0.0.1:${daemonPort}`,
        proxySecretHeader: 'X-Registry-Proxy-Secret',
        proxySecret: PROXY_SECRET,
        registryPort,
      },
    );
    token = await registryToken(world);
    image = await mkdtemp(join(tmpdir(), 'svc-oci-'));
    await writeOciLayout(image, 'v1', 'hello from the registry test');
    await seedUser(world.knex, { sub: 'sub-ada', username: 'ada' }, [{ orgSlug: 'acme', role: 'admin' }]);
    as.ada = `Bearer ${await world.idp.mintAccessToken({ sub: 'sub-ada', username: 'ada', realmRoles: [] })}`;
    as.opal = world.operator;
    as.root = `Bearer ${await world.idp.mintAccessToken({ sub: 'sub-root', username: 'root', realmRoles: ['admin'] })}`;
  }, 300_000);
  afterAll(async () => {
    await stack?.stop();
    await world?.close();
    if (image) await rm(image, { recursive: true, force: true });
  });

  it('pushes into the own cache namespace', async () => {
    const pushed = await skopeoCopy(`oci:${image}:v1`, viaProxy(OWN), token.token);
    expect(pushed.output).toContain('Writing manifest');
    expect(pushed.code).toBe(0);
    const entries = await world.knex('audit_logs').where({ event_type: 'image.pushed' });
    expect(entries.map((entry) => entry.details_json.repository)).toContain(OWN);
  });

  it("refuses a push into another organization's namespace (403)", async () => {
    const pushed = await skopeoCopy(`oci:${image}:v1`, viaProxy('orgs/globex/docker.io/library/hello'), token.token);
    expect(pushed.code).not.toBe(0);
    expect(pushed.output).toMatch(/403|denied|forbidden/i);
  });

  it('refuses a wrong token (401)', async () => {
    const inspected = await stack.skopeo(['inspect', '--tls-verify=false', '--creds', `step:svc_run_${'x'.repeat(43)}`, viaProxy(OWN)]);
    expect(inspected.code).not.toBe(0);
    expect(inspected.output).toMatch(/401|unauthorized|authentication required/i);
  });

  it('pulls from the shared namespace', async () => {
    // The shared organization's image, put into the registry directly (behind the proxy's back).
    const seeded = await stack.skopeo([
      'copy',
      '--dest-tls-verify=false',
      `oci:${image}:v1`,
      `docker://${new URL(stack.registryUrl).host}/${SHARED}:v1`,
    ]);
    expect(seeded.code).toBe(0);
    const pulled = await skopeoCopy(viaProxy(SHARED), `oci:${image}:pulled`, token.token);
    expect(pulled.code).toBe(0);
  });

  it('refuses a delete (403) and the catalogue (403)', async () => {
    const deleted = await stack.skopeo(['delete', '--tls-verify=false', '--creds', `step:${token.token}`, viaProxy(OWN)]);
    expect(deleted.code).not.toBe(0);
    expect(deleted.output).toMatch(/403/);
    const catalog = await fetch(`http://${stack.proxyHost}/v2/_catalog`, { headers: { authorization: basic(token.token) } });
    expect(catalog.status).toBe(403);
  });

  it('refuses a revoked token (401)', async () => {
    const doomed = await registryToken(world);
    expect((await stack.skopeo(['inspect', '--tls-verify=false', '--creds', `step:${doomed.token}`, viaProxy(OWN)])).code).toBe(0);
    await revoke(world, doomed);
    const inspected = await stack.skopeo(['inspect', '--tls-verify=false', '--creds', `step:${doomed.token}`, viaProxy(OWN)]);
    expect(inspected.code).not.toBe(0);
    expect(inspected.output).toMatch(/401|unauthorized|authentication required/i);
  });

  it('lists the namespaces, repositories and tags the organization sees', async () => {
    const namespaces = await api('opal', 'GET', '/images/namespaces');
    expect(namespaces.status).toBe(200);
    expect(namespaces.body.items).toEqual(
      expect.arrayContaining([
        { name: 'orgs/acme', kind: 'organization', repositories: 1, writable: true },
        { name: 'orgs/commons', kind: 'shared', repositories: 1, writable: false },
        { name: 'global', kind: 'global', repositories: 0, writable: false },
      ]),
    );
    const repositories = await api('opal', 'GET', '/images/repositories');
    expect(repositories.body.items).toEqual([
      { name: OWN, namespace: 'orgs/acme', upstream: 'docker.io' },
      { name: SHARED, namespace: 'orgs/commons', upstream: 'docker.io' },
    ]);
    const repository = await api('opal', 'GET', `/images/repository?name=${encodeURIComponent(OWN)}`);
    expect(repository.status).toBe(200);
    expect(repository.body.tags).toEqual([{ name: 'v1', digest: expect.stringMatching(/^sha256:/) }]);
    expect((await api('opal', 'GET', `/images/repository?name=orgs/globex/x/y`)).status).toBe(404);
  });

  it('svc images lists the repositories and a repository’s tags, and refuses what may not be deleted, deleting nothing', async () => {
    const svc = (who: string, args: string[]) =>
      runSvc(['--server', world.daemon.url, '--org', 'acme', 'images', ...args], {
        configHome: image,
        env: { SVC_TOKEN: as[who]!.replace(/^Bearer /, '') },
      });
    const listed = await json<{ items: { name: string }[] }>(svc('opal', ['list', '--json']));
    expect(listed.items.map((r) => r.name)).toEqual([OWN, SHARED]);
    expect((await ok(svc('opal', ['list', '--namespace', 'orgs/commons']))).stdout).toMatch(
      /orgs\/commons\/docker\.io\/library\/base\s+orgs\/commons\s+docker\.io/,
    );
    expect((await ok(svc('opal', ['tags', OWN]))).stdout).toMatch(/v1\s+sha256:/);
    expect((await svc('opal', ['tags', 'orgs/globex/x/y'])).code).toBe(3);
    // An operator may not delete (5), the shared namespace is read-only even to an admin (5), and without
    // a terminal a delete needs --yes (2).
    expect((await svc('opal', ['rm', OWN, 'v1', '--yes'])).code).toBe(5);
    const shared = await svc('ada', ['rm', SHARED, '--yes']);
    expect([shared.code, shared.stderr.includes('shared_read_only')]).toEqual([5, true]);
    expect((await svc('ada', ['rm', OWN, 'v1'])).code).toBe(2);
    expect((await api('opal', 'GET', `/images/repository?name=${encodeURIComponent(OWN)}`)).body.tags).toHaveLength(1);
  });

  it("deletes in the own namespace only: the shared one is read-only (403), an admin's (204)", async () => {
    expect((await api('opal', 'DELETE', `/images/repository/tag?name=${OWN}&tag=v1`)).status).toBe(403);
    const shared = await api('ada', 'DELETE', `/images/repository?name=${SHARED}`);
    expect(shared.status).toBe(403);
    expect(shared.body.code).toBe('shared_read_only');
    // The admin's delete through svc images rm (DELETE /images/repository/tag, 204).
    const removed = await runSvc(['--server', world.daemon.url, '--org', 'acme', 'images', 'rm', OWN, 'v1', '--yes', '--json'], {
      configHome: image,
      env: { SVC_TOKEN: as.ada!.replace(/^Bearer /, '') },
    });
    expect([removed.code, JSON.parse(removed.stdout)]).toEqual([0, { repository: OWN, tag: 'v1', deleted: true }]);
    expect((await api('ada', 'GET', `/images/repository?name=${OWN}`)).body.tags).toEqual([]);
    expect((await api('ada', 'DELETE', `/images/repository/tag?name=${OWN}&tag=v1`)).status).toBe(404);
    expect(await world.knex('audit_logs').where({ event_type: 'image.tag_deleted' })).toHaveLength(1);
  });

  it('gives platform admins usage and delete everywhere', async () => {
    expect((await api('ada', 'GET', '/platform/images/usage')).status).toBe(403);
    const usage = await api('root', 'GET', '/platform/images/usage');
    expect(usage.status).toBe(200);
    expect(usage.body.namespaces).toEqual(
      expect.arrayContaining([{ name: 'orgs/commons', org_id: world.commonsId, repositories: 1, tags: 1 }]),
    );
    expect((await api('root', 'DELETE', `/platform/images/repository?name=${SHARED}`)).status).toBe(204);
    expect((await api('root', 'GET', `/images/repository?name=${SHARED}`)).body.tags).toEqual([]);
  });
});
