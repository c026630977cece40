import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';

let idp: DevIdp;
let daemon: TestDaemon;
const as: Record<string, string> = {};
const flows: Record<string, string> = {};

const knex = () => daemon.services.db.knex;
const sleep = (id: string) => ({ id, handler: 'general.sleep', config: { seconds: 5 } });
const definition = { steps: [sleep('a')] };

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' });
  await seedOrg(knex(), 'acme', 'Acme');
  await seedOrg(knex(), 'globex', 'Globex');
  const commons = await seedOrg(knex(), 'commons', 'Commons');
  await knex()('organizations').where({ id: commons }).update({ is_shared: true });
  await seedUser(knex(), { sub: 'sub-olga', username: 'olga' }, [{ orgSlug: 'acme', role: 'operator' }]);
  await seedUser(knex(), { sub: 'sub-gus', username: 'gus' }, [{ orgSlug: 'globex', role: 'admin' }]);
  await seedUser(knex(), { sub: 'sub-cora', username: 'cora' }, [
    { orgSlug: 'commons', role: 'operator' },
    { orgSlug: 'acme', role: 'viewer' },
  ]);
  const token = async (sub: string, username: string, realmRoles: string[] = []) =>
    `Bearer ${await idp.mintAccessToken({ sub, username, email: `${username}@example.test`, realmRoles })}`;
  as.root = await token('sub-root', 'root', ['admin']);
  as.olga = await token('sub-olga', 'olga');
  as.gus = await token('sub-gus', 'gus');
  as.cora = await token('sub-cora', 'cora');

  flows.globex = await create('gus', 'globex', 'Globex secret');
  flows.shared = await create('cora', 'commons', 'Shared recipe');
  await expectStatus(call('cora', 'commons', 'POST', `/flows/${flows.shared}/commit`, {}), 201);
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

function call(who: string, org: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: as[who]!, 'x-org-id': org, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function expectStatus(pending: Promise<Response>, status: number): Promise<Record<string, any>> {
  const response = await pending;
  const body = (response.status === 204 ? {} : await response.json()) as Record<string, any>;
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body;
}

async function create(who: string, org: string, name: string): Promise<string> {
  return (await expectStatus(call(who, org, 'POST', '/flows', { name, definition }), 201)).id;
}

async function code(pending: Promise<Response>): Promise<[number, string]> {
  const response = await pending;
  return [response.status, ((await response.json()) as { code: string }).code];
}

const snapshot = async (id: string) => ({
  flow: await knex()('flows').where({ id }).first(),
  versions: await knex()('flow_versions').where({ flow_id: id }).select(),
});

describe("another organization's flow", () => {
  it('is 404 on every read, update and delete, and nothing changes', async () => {
    const before = await snapshot(flows.globex!);
    const id = flows.globex!;
    const attempts: [string, string, unknown?][] = [
      ['GET', `/flows/${id}`],
      ['GET', `/flows/${id}/versions`],
      ['GET', `/flows/${id}/versioning-info`],
      ['GET', `/flows/${id}/interface`],
      ['POST', `/flows/${id}/validate`, {}],
      ['PUT', `/flows/${id}`, { name: 'Mine', definition }],
      ['POST', `/flows/${id}/draft`, { definition: { steps: [sleep('b')] } }],
      ['POST', `/flows/${id}/commit`, {}],
      ['PATCH', `/flows/${id}/pin`, { pinned: true }],
      ['POST', `/flows/${id}/duplicate`, {}],
      ['DELETE', `/flows/${id}`],
      ['POST', `/flows/${id}/restore`],
    ];
    for (const [method, path, body] of attempts) {
      expect(await code(call('olga', 'acme', method, path, body)), `${method} ${path}`).toEqual([404, 'resource_not_found']);
    }
    expect(await code(call('root', 'acme', 'DELETE', `/flows/${id}/permanent`))).toEqual([404, 'resource_not_found']);
    expect(await snapshot(id)).toEqual(before);
    const listed = await expectStatus(call('olga', 'acme', 'GET', '/flows'), 200);
    expect(listed.items.map((f: { id: string }) => f.id)).not.toContain(id);
  });

  it('and a malformed id are 404, never a 500', async () => {
    expect(await code(call('olga', 'acme', 'GET', '/flows/not-a-uuid'))).toEqual([404, 'resource_not_found']);
    expect(await code(call('olga', 'acme', 'POST', '/flows/not-a-uuid/commit', {}))).toEqual([404, 'resource_not_found']);
    expect(await code(call('olga', 'acme', 'DELETE', '/flows/00000000-0000-4000-8000-000000000000'))).toEqual([404, 'resource_not_found']);
  });
});

describe("the shared organization's flow", () => {
  it('is readable from another organization, marked read-only with its org_id', async () => {
    const shared = await knex()('organizations').where({ slug: 'commons' }).first('id');
    const flow = await expectStatus(call('olga', 'acme', 'GET', `/flows/${flows.shared}`), 200);
    expect(flow).toMatchObject({ org_id: shared.id, read_only: true, latest_version: 1 });
    const listed = await expectStatus(call('olga', 'acme', 'GET', '/flows'), 200);
    expect(listed.items.find((f: { id: string }) => f.id === flows.shared)).toMatchObject({ org_id: shared.id, read_only: true });
    expect((await expectStatus(call('olga', 'acme', 'GET', `/flows/${flows.shared}/versions/1`), 200)).definition.steps).toEqual([
      sleep('a'),
    ]);
    expect((await expectStatus(call('olga', 'acme', 'GET', `/flows/${flows.shared}/launch-contract`), 200)).launchable).toBe(true);
  });

  it('answers 403 shared_read_only to writes from another organization, changing nothing', async () => {
    const id = flows.shared!;
    const before = await snapshot(id);
    const attempts: [string, string, unknown?][] = [
      ['PUT', `/flows/${id}`, { name: 'Hijacked', definition }],
      ['POST', `/flows/${id}/draft`, { definition: { steps: [sleep('b')] } }],
      ['POST', `/flows/${id}/commit`, {}],
      ['POST', `/flows/${id}/revert-draft`],
      ['POST', `/flows/${id}/restore/1`],
      ['PATCH', `/flows/${id}/pin`, { pinned: true }],
      ['PATCH', `/flows/${id}/manual-runs`, { enabled: false }],
      ['DELETE', `/flows/${id}`],
    ];
    for (const [method, path, body] of attempts) {
      expect(await code(call('olga', 'acme', method, path, body)), `${method} ${path}`).toEqual([403, 'shared_read_only']);
    }
    expect(await code(call('root', 'acme', 'DELETE', `/flows/${id}/permanent`))).toEqual([403, 'shared_read_only']);
    expect(await snapshot(id)).toEqual(before);
  });

  it("is duplicated into the caller's own organization, where it is writable", async () => {
    const acme = await knex()('organizations').where({ slug: 'acme' }).first('id');
    const copy = await expectStatus(call('olga', 'acme', 'POST', `/flows/${flows.shared}/duplicate`, {}), 201);
    expect(copy).toMatchObject({
      org_id: acme.id,
      read_only: false,
      name: 'Shared recipe (copy)',
      latest_version: 0,
      draft: { steps: [sleep('a')] },
    });
    await expectStatus(call('olga', 'acme', 'POST', `/flows/${copy.id}/commit`, {}), 201);
  });

  it('stays writable from the shared organization itself', async () => {
    await expectStatus(call('cora', 'commons', 'PATCH', `/flows/${flows.shared}/pin`, { pinned: true }), 200);
    expect((await knex()('flows').where({ id: flows.shared }).first()).is_pinned).toBe(true);
  });

  it('once soft-deleted, disappears from other organizations too', async () => {
    const id = await create('cora', 'commons', 'Shared and binned');
    await expectStatus(call('cora', 'commons', 'DELETE', `/flows/${id}`), 204);
    expect(await code(call('olga', 'acme', 'GET', `/flows/${id}`))).toEqual([404, 'resource_not_found']);
    const listed = await expectStatus(call('olga', 'acme', 'GET', '/flows?include_deleted=true'), 200);
    expect(listed.items.map((f: { id: string }) => f.id)).not.toContain(id);
    expect(await code(call('olga', 'acme', 'POST', `/flows/${id}/restore`))).toEqual([404, 'resource_not_found']);
  });
});
