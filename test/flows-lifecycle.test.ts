import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';

let idp: DevIdp;
let daemon: TestDaemon;
const as: Record<string, string> = {};

const knex = () => daemon.services.db.knex;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' });
  await seedOrg(knex(), 'acme', 'Acme');
  await seedUser(knex(), { sub: 'sub-olga', username: 'olga' }, [{ orgSlug: 'acme', role: 'operator' }]);
  await seedUser(knex(), { sub: 'sub-vic', username: 'vic' }, [{ orgSlug: 'acme', role: 'viewer' }]);
  await seedUser(knex(), { sub: 'sub-ada', username: 'ada' }, [{ orgSlug: 'acme', role: 'admin' }]);
  const token = async (sub: string, username: string, realmRoles: string[] = []) =>
    `Bearer ${await idp.mintAccessToken({ sub, username, email: `${username}@acme.test`, realmRoles })}`;
  as.root = await token('sub-root', 'root', ['admin']);
  as.olga = await token('sub-olga', 'olga');
  as.vic = await token('sub-vic', 'vic');
  as.ada = await token('sub-ada', 'ada');
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

function call(who: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: as[who]!, 'x-org-id': 'acme', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function json<T = Record<string, any>>(response: Response, status: number): Promise<T> {
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body as T;
}

async function problem(response: Response): Promise<{ status: number; code: string }> {
  const body = (await response.json()) as { code: string };
  return { status: response.status, code: body.code };
}

const sleep = (id: string, seconds = 5) => ({ id, handler: 'general.sleep', config: { seconds } });
const chain = (...ids: string[]) => ({
  steps: ids.map((id) => sleep(id)),
  edges: ids.slice(1).map((id, i) => ({ from: ids[i]!, to: id })),
});

async function createFlow(name: string, definition?: unknown): Promise<Record<string, any>> {
  return json(await call('olga', 'POST', '/flows', { name, ...(definition === undefined ? {} : { definition }) }), 201);
}

const flowRow = (id: string) => knex()('flows').where({ id }).first();
const versionRows = (id: string) =>
  knex()('flow_versions').where({ flow_id: id }).orderBy('version').select('version', 'message', 'committed_by');
const audits = (id: string) => knex()('audit_logs').where({ resource_type: 'flow', resource_id: id }).orderBy('ts').select();

describe('a flow from draft to versions', () => {
  let id: string;

  it('is created with an empty draft, no version, and says why the draft is not committable', async () => {
    const flow = await createFlow('  Core upgrade  ');
    id = flow.id;
    expect(flow).toMatchObject({
      name: 'Core upgrade',
      latest_version: 0,
      draft_dirty: true,
      is_pinned: false,
      manual_runs_enabled: true,
      read_only: false,
      created_by: 'sub-olga',
    });
    expect(flow.draft).toEqual({ steps: [], edges: [], inputs: [], target_roles: [] });
    expect(flow.validation).toEqual({ valid: false, issues: [{ path: 'steps', code: 'no_steps', message: expect.any(String) }] });
    expect(await versionRows(id)).toEqual([]);
    expect(await problem(await call('olga', 'POST', `/flows/${id}/commit`, {}))).toEqual({ status: 422, code: 'validation_failed' });
  });

  it('saves an incomplete draft, and commit refuses it listing every issue with its path', async () => {
    const draft = {
      steps: [sleep('a'), sleep('b', 0)],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'a' },
        { from: 'a', to: 'nowhere' },
      ],
    };
    const saved = await json(await call('olga', 'POST', `/flows/${id}/draft`, { definition: draft }), 200);
    expect(saved.validation.valid).toBe(false);
    const refusal = await json(await call('olga', 'POST', `/flows/${id}/commit`, { message: 'too soon' }), 422);
    expect(refusal.code).toBe('validation_failed');
    expect(refusal.errors.map((e: { path: string }) => e.path).sort()).toEqual(['edges[1]', 'edges[2].to', 'steps[1].config.seconds']);
    expect(await versionRows(id)).toEqual([]);
  });

  it('refuses a draft of the wrong shape with 422 and the body path, keeping the stored draft', async () => {
    const before = await flowRow(id);
    const refusal = await json(
      await call('olga', 'POST', `/flows/${id}/draft`, { definition: { steps: [{ id: 'a', handler: 42, config: {} }] } }),
      422,
    );
    expect(refusal.errors.map((e: { path: string }) => e.path)).toEqual(['definition.steps[0].handler']);
    expect((await flowRow(id)).draft_json).toEqual(before.draft_json);
  });

  it('commits version 1, then refuses a commit with nothing new (409 nothing_to_commit)', async () => {
    await json(await call('olga', 'POST', `/flows/${id}/draft`, { definition: chain('a', 'b') }), 200);
    const v1 = await json(await call('olga', 'POST', `/flows/${id}/commit`, { message: 'first' }), 201);
    expect(v1).toMatchObject({
      flow_id: id,
      version: 1,
      message: 'first',
      committed_by: 'sub-olga',
      definition: { steps: [sleep('a'), sleep('b')] },
    });
    expect(await flowRow(id)).toMatchObject({ latest_version: 1, draft_dirty: false });
    expect(await problem(await call('olga', 'POST', `/flows/${id}/commit`, {}))).toEqual({ status: 409, code: 'nothing_to_commit' });
    expect(await versionRows(id)).toEqual([{ version: 1, message: 'first', committed_by: 'sub-olga' }]);
  });

  it('marks the draft dirty when it changes, and back when it matches the newest version again', async () => {
    expect((await json(await call('olga', 'POST', `/flows/${id}/draft`, { definition: chain('a', 'b', 'c') }), 200)).draft_dirty).toBe(
      true,
    );
    expect((await json(await call('olga', 'POST', `/flows/${id}/draft`, { definition: chain('a', 'b') }), 200)).draft_dirty).toBe(false);
    await json(await call('olga', 'POST', `/flows/${id}/draft`, { definition: chain('a', 'b', 'c') }), 200);
  });

  it('commits version 2 and lists versions newest first', async () => {
    expect((await json(await call('olga', 'POST', `/flows/${id}/commit`, { message: 'add c' }), 201)).version).toBe(2);
    const list = await json(await call('vic', 'GET', `/flows/${id}/versions`), 200);
    expect(list).toMatchObject({ total: 2, limit: 50, offset: 0 });
    expect(list.items.map((v: { version: number; message: string }) => [v.version, v.message])).toEqual([
      [2, 'add c'],
      [1, 'first'],
    ]);
    expect(list.items[0]).not.toHaveProperty('definition');
    expect(typeof list.items[0].committed_at).toBe('string');
  });

  it('answers one version with its definition; an unknown or malformed one is 404', async () => {
    const v1 = await json(await call('vic', 'GET', `/flows/${id}/versions/1`), 200);
    expect(v1.definition).toEqual({ ...chain('a', 'b'), inputs: [], target_roles: [] });
    for (const version of ['3', '0', 'abc', '1.5']) {
      expect(await problem(await call('vic', 'GET', `/flows/${id}/versions/${version}`))).toEqual({
        status: 404,
        code: 'resource_not_found',
      });
    }
  });

  it('compares versions and the draft structurally', async () => {
    const diff = await json(await call('vic', 'GET', `/flows/${id}/versions/compare?from=1&to=2`), 200);
    expect(diff).toMatchObject({
      from: 1,
      to: 2,
      identical: false,
      steps: { added: [{ id: 'c', handler: 'general.sleep' }], removed: [], changed: [] },
      edges: { added: [{ from: 'b', to: 'c' }], removed: [] },
    });
    await json(
      await call('olga', 'POST', `/flows/${id}/draft`, {
        definition: { ...chain('a', 'b', 'c'), steps: [sleep('a', 9), sleep('b'), sleep('c')] },
      }),
      200,
    );
    const toDraft = await json(await call('vic', 'GET', `/flows/${id}/versions/compare`), 200);
    expect(toDraft).toMatchObject({
      from: 2,
      to: 'draft',
      steps: { changed: [{ id: 'a', fields: ['config'], config_keys: ['seconds'] }] },
    });
    expect(await problem(await call('vic', 'GET', `/flows/${id}/versions/compare?from=7`))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
    expect(await problem(await call('vic', 'GET', `/flows/${id}/versions/compare?from=latest`))).toEqual({
      status: 422,
      code: 'validation_failed',
    });
  });

  it('reports its versioning state', async () => {
    expect(await json(await call('vic', 'GET', `/flows/${id}/versioning-info`), 200)).toMatchObject({
      flow_id: id,
      latest_version: 2,
      version_count: 2,
      latest: { version: 2, message: 'add c', committed_by: 'sub-olga' },
      draft_dirty: true,
      draft_valid: true,
      committable: true,
    });
  });

  it('reverts the draft to the newest version', async () => {
    const reverted = await json(await call('olga', 'POST', `/flows/${id}/revert-draft`), 200);
    expect(reverted).toMatchObject({ draft_dirty: false, draft: chain('a', 'b', 'c') });
    expect(await versionRows(id)).toHaveLength(2);
  });

  it('restores an older version into the draft without committing', async () => {
    const restored = await json(await call('olga', 'POST', `/flows/${id}/restore/1`), 200);
    expect(restored).toMatchObject({ latest_version: 2, draft_dirty: true, draft: chain('a', 'b') });
    expect(await versionRows(id)).toHaveLength(2);
    expect(await problem(await call('olga', 'POST', `/flows/${id}/restore/9`))).toEqual({ status: 404, code: 'resource_not_found' });
    expect((await json(await call('olga', 'POST', `/flows/${id}/commit`, {}), 201)).version).toBe(3);
  });

  it('replaces name, description and draft with PUT', async () => {
    const replaced = await json(
      await call('olga', 'PUT', `/flows/${id}`, { name: 'Core upgrade v2', description: 'IOS-XE', definition: chain('x') }),
      200,
    );
    expect(replaced).toMatchObject({
      name: 'Core upgrade v2',
      description: 'IOS-XE',
      draft_dirty: true,
      draft: chain('x'),
      updated_by: 'sub-olga',
    });
    expect(await problem(await call('olga', 'PUT', `/flows/${id}`, { name: 'no definition' }))).toEqual({
      status: 422,
      code: 'validation_failed',
    });
  });

  it('wrote one audit entry per change, with a summary of the draft and never the definition', async () => {
    const entries = await audits(id);
    const events = entries.map((e) => e.event_type);
    expect(events[0]).toBe('entity.created');
    expect(events.filter((e) => e === 'flow.committed')).toHaveLength(3);
    expect(entries.find((e) => e.event_type === 'flow.committed')).toMatchObject({
      action: 'flow:commit',
      actor_sub: 'sub-olga',
      outcome: 'success',
      details_json: { version: 1, message: 'first' },
    });
    const drafts = entries.filter((e) => e.event_type === 'entity.updated');
    expect(drafts.length).toBeGreaterThanOrEqual(6);
    for (const entry of drafts) {
      expect(entry.action).toBe('flow:manage');
      expect(entry.details_json).not.toHaveProperty('definition');
    }
    expect(drafts[0].details_json).toMatchObject({ changes: ['draft'], draft: { steps: 2, edges: 3, valid: false } });
    expect(drafts.some((e) => e.details_json.restored_from === 1)).toBe(true);
    expect(drafts.some((e) => e.details_json.reverted_to === 2)).toBe(true);
  });

  it('refuses a viewer every write', async () => {
    expect((await call('vic', 'POST', `/flows/${id}/draft`, { definition: chain('v') })).status).toBe(403);
    expect((await call('vic', 'POST', `/flows/${id}/commit`, {})).status).toBe(403);
    expect((await call('vic', 'POST', '/flows', { name: 'viewer flow' })).status).toBe(403);
  });
});

describe('concurrent commits', () => {
  it('of one draft yield one version; the rest find nothing to commit', async () => {
    const { id } = await createFlow('Race', chain('a'));
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => call('olga', 'POST', `/flows/${id}/commit`, { message: `try ${i}` })),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409]);
    for (const answer of answers.filter((r) => r.status === 409)) expect((await problem(answer)).code).toBe('nothing_to_commit');
    expect((await versionRows(id)).map((v) => v.version)).toEqual([1]);
  });

  it('interleaved with draft saves number versions without gap or duplicate', async () => {
    const { id } = await createFlow('Race 2', chain('a'));
    const work = [];
    for (let i = 0; i < 6; i++) {
      work.push(call('olga', 'POST', `/flows/${id}/draft`, { definition: chain('a', `s${i}`) }));
      work.push(call('olga', 'POST', `/flows/${id}/commit`, {}));
    }
    const statuses = (await Promise.all(work)).map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 201 || s === 409)).toBe(true);
    const versions = (await versionRows(id)).map((v) => v.version);
    expect(versions.length).toBe(statuses.filter((s) => s === 201).length);
    expect(versions).toEqual(versions.map((_, i) => i + 1));
    expect((await flowRow(id)).latest_version).toBe(versions.length);
  });
});

describe('saves and commits with If-Match', () => {
  const tagged = (method: string, path: string, body: unknown, ifMatch: string) =>
    fetch(`${daemon.url}${path}`, {
      method,
      headers: { authorization: as.olga!, 'x-org-id': 'acme', 'content-type': 'application/json', 'if-match': ifMatch },
      body: JSON.stringify(body),
    });

  it('change only the version read: a draft saved over since is 412 for a save and for a commit, which commits nothing', async () => {
    const { id } = await createFlow('Tagged', chain('a'));
    const read = await call('olga', 'GET', `/flows/${id}`);
    const etag = read.headers.get('etag')!;
    expect(etag).toMatch(/^"[\w-]+"$/);

    // Someone else saves first, with the version they read.
    const theirs = await tagged('POST', `/flows/${id}/draft`, { definition: chain('a', 'b') }, etag);
    expect(theirs.status).toBe(200);
    const saved = theirs.headers.get('etag')!;
    expect(saved).not.toBe(etag);
    expect((await call('olga', 'GET', `/flows/${id}`)).headers.get('etag')).toBe(saved);

    // Holding the older version: neither a save, a PUT nor a commit goes through, and nothing changes.
    expect(await problem(await tagged('POST', `/flows/${id}/draft`, { definition: chain('a', 'c') }, etag))).toEqual({
      status: 412,
      code: 'precondition_failed',
    });
    expect(await problem(await tagged('PUT', `/flows/${id}`, { name: 'Tagged', definition: chain('a', 'c') }, etag))).toEqual({
      status: 412,
      code: 'precondition_failed',
    });
    expect(await problem(await tagged('POST', `/flows/${id}/commit`, { message: 'unseen' }, etag))).toEqual({
      status: 412,
      code: 'precondition_failed',
    });
    expect(await versionRows(id)).toEqual([]);
    expect((await flowRow(id)).draft_json).toMatchObject(chain('a', 'b'));

    // The version just saved commits.
    const committed = await json(await tagged('POST', `/flows/${id}/commit`, { message: 'seen' }, saved), 201);
    expect(committed).toMatchObject({ version: 1, message: 'seen' });
    expect(await versionRows(id)).toHaveLength(1);
  });

  it('hold for reverting and restoring the draft: an older version is 412 and the draft stays; the current one passes', async () => {
    const { id } = await createFlow('Tagged restore', chain('a'));
    const first = (await call('olga', 'GET', `/flows/${id}`)).headers.get('etag')!;
    expect((await tagged('POST', `/flows/${id}/commit`, { message: 'one' }, first)).status).toBe(201);
    const edited = await tagged('POST', `/flows/${id}/draft`, { definition: chain('a', 'b') }, '*');
    expect(edited.status).toBe(200);
    const seen = edited.headers.get('etag')!;
    // Another editor saves after this one looked.
    const theirs = await tagged('POST', `/flows/${id}/draft`, { definition: chain('a', 'c') }, seen);
    const current = theirs.headers.get('etag')!;

    for (const path of [`/flows/${id}/revert-draft`, `/flows/${id}/restore/1`]) {
      const refused = await fetch(`${daemon.url}${path}`, {
        method: 'POST',
        headers: { authorization: as.olga!, 'x-org-id': 'acme', 'if-match': seen },
      });
      expect(await problem(refused)).toEqual({ status: 412, code: 'precondition_failed' });
      expect((await flowRow(id)).draft_json).toMatchObject(chain('a', 'c'));
    }

    const reverted = await fetch(`${daemon.url}/flows/${id}/revert-draft`, {
      method: 'POST',
      headers: { authorization: as.olga!, 'x-org-id': 'acme', 'if-match': current },
    });
    expect(reverted.status).toBe(200);
    expect((await flowRow(id)).draft_json).toMatchObject(chain('a'));
    const restored = await fetch(`${daemon.url}/flows/${id}/restore/1`, {
      method: 'POST',
      headers: { authorization: as.olga!, 'x-org-id': 'acme', 'if-match': reverted.headers.get('etag')! },
    });
    expect(restored.status).toBe(200);
    expect(restored.headers.get('etag')).toBe((await call('olga', 'GET', `/flows/${id}`)).headers.get('etag'));
  });
});

describe('names', () => {
  it.each([
    ['empty after trimming', '   '],
    ['a control character', 'bad\u0007name'],
    ['256 characters', 'n'.repeat(256)],
  ])('refuse %s with 422, creating nothing', async (_, name) => {
    expect(await problem(await call('olga', 'POST', '/flows', { name }))).toEqual({ status: 422, code: 'validation_failed' });
  });

  it('are unique among live flows of the organization (409 conflict)', async () => {
    const { id } = await createFlow('Unique');
    expect(await problem(await call('olga', 'POST', '/flows', { name: 'Unique' }))).toEqual({ status: 409, code: 'conflict' });
    const other = await createFlow('Other');
    expect(await problem(await call('olga', 'PUT', `/flows/${other.id}`, { name: 'Unique', definition: {} }))).toEqual({
      status: 409,
      code: 'conflict',
    });
    expect((await flowRow(other.id)).name).toBe('Other');
    const [row] = await knex()('flows').where({ name: 'Unique' }).count<{ n: string }[]>('* as n');
    expect(Number(row!.n)).toBe(1);
    expect((await call('olga', 'DELETE', `/flows/${id}`)).status).toBe(204);
    await createFlow('Unique');
  });
});

describe('soft delete, restore and purge', () => {
  it('hides a deleted flow from lists and reads until it is restored', async () => {
    const { id } = await createFlow('Bin me', chain('a'));
    expect((await call('olga', 'DELETE', `/flows/${id}`)).status).toBe(204);
    expect(await flowRow(id)).toMatchObject({ deleted_by: 'sub-olga' });
    expect(await problem(await call('olga', 'GET', `/flows/${id}`))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await problem(await call('olga', 'POST', `/flows/${id}/draft`, { definition: chain('b') }))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
    expect(await problem(await call('olga', 'DELETE', `/flows/${id}`))).toEqual({ status: 404, code: 'resource_not_found' });
    const names = async (query: string) =>
      ((await json(await call('olga', 'GET', `/flows${query}`), 200)).items as { name: string; deleted_at: string | null }[]).filter(
        (f) => f.name === 'Bin me',
      );
    expect(await names('')).toEqual([]);
    expect((await names('?include_deleted=true'))[0]!.deleted_at).toEqual(expect.any(String));

    const restored = await json(await call('olga', 'POST', `/flows/${id}/restore`), 200);
    expect(restored).toMatchObject({ id, deleted_at: null, deleted_by: null, draft: chain('a') });
    expect(await problem(await call('olga', 'POST', `/flows/${id}/restore`))).toEqual({ status: 409, code: 'conflict' });
    expect((await audits(id)).map((e) => e.event_type)).toEqual(['entity.created', 'entity.deleted', 'entity.restored']);
  });

  it('refuses a restore when a live flow took the name (409)', async () => {
    const { id } = await createFlow('Taken');
    expect((await call('olga', 'DELETE', `/flows/${id}`)).status).toBe(204);
    await createFlow('Taken');
    expect(await problem(await call('olga', 'POST', `/flows/${id}/restore`))).toEqual({ status: 409, code: 'conflict' });
    expect((await flowRow(id)).deleted_at).not.toBeNull();
  });

  it('purges for an admin only, live or deleted, with the versions', async () => {
    const live = await createFlow('Purge live', chain('a'));
    await json(await call('olga', 'POST', `/flows/${live.id}/commit`, {}), 201);
    expect(await problem(await call('olga', 'DELETE', `/flows/${live.id}/permanent`))).toEqual({ status: 403, code: 'forbidden' });
    expect(await flowRow(live.id)).toBeDefined();
    expect((await call('root', 'DELETE', `/flows/${live.id}/permanent`)).status).toBe(204);
    expect(await flowRow(live.id)).toBeUndefined();
    expect(await versionRows(live.id)).toEqual([]);
    expect((await audits(live.id)).at(-1)).toMatchObject({
      event_type: 'entity.purged',
      action: 'flow:purge',
      actor_sub: 'sub-root',
      details_json: { latest_version: 1, was_deleted: false },
    });

    const binned = await createFlow('Purge binned');
    expect((await call('olga', 'DELETE', `/flows/${binned.id}`)).status).toBe(204);
    expect((await call('ada', 'DELETE', `/flows/${binned.id}/permanent`)).status).toBe(204);
    expect(await flowRow(binned.id)).toBeUndefined();
    expect(await problem(await call('root', 'DELETE', `/flows/${binned.id}/permanent`))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
  });
});

describe('lists, pins, manual runs and duplicates', () => {
  it('filter by name and pin, pinned first then by name, paginated', async () => {
    const b = await createFlow('Zeta list');
    await createFlow('alpha list');
    await createFlow('Mid list');
    const pinned = await json(await call('olga', 'PATCH', `/flows/${b.id}/pin`, { pinned: true }), 200);
    expect(pinned.is_pinned).toBe(true);
    const all = await json(await call('vic', 'GET', '/flows?q=LIST'), 200);
    expect(all.items.map((f: { name: string }) => f.name)).toEqual(['Zeta list', 'alpha list', 'Mid list']);
    expect(all.items[0]).toMatchObject({ latest_version: 0, draft_dirty: true, manual_runs_enabled: true, is_pinned: true });
    expect(all.items[0]).not.toHaveProperty('draft');
    expect((await json(await call('vic', 'GET', '/flows?q=list&pinned=false'), 200)).items.map((f: { name: string }) => f.name)).toEqual([
      'alpha list',
      'Mid list',
    ]);
    const page = await json(await call('vic', 'GET', '/flows?q=list&limit=1&offset=1'), 200);
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 1, items: [{ name: 'alpha list' }] });
    expect((await json(await call('vic', 'GET', '/flows?q=%25'), 200)).items).toEqual([]);
    expect(await problem(await call('vic', 'GET', '/flows?limit=501'))).toEqual({ status: 422, code: 'validation_failed' });
  });

  it('switch manual runs off and on', async () => {
    const { id } = await createFlow('Manual');
    expect((await json(await call('olga', 'PATCH', `/flows/${id}/manual-runs`, { enabled: false }), 200)).manual_runs_enabled).toBe(false);
    expect((await flowRow(id)).manual_runs_enabled).toBe(false);
    expect((await audits(id)).at(-1)).toMatchObject({
      event_type: 'entity.updated',
      details_json: { changes: ['manual_runs_enabled'], new: { manual_runs_enabled: false } },
    });
    expect(await problem(await call('olga', 'PATCH', `/flows/${id}/manual-runs`, { enabled: 'no' }))).toEqual({
      status: 422,
      code: 'validation_failed',
    });
  });

  it('duplicate the draft into a new flow without versions', async () => {
    const source = await createFlow('Template', chain('a', 'b'));
    await json(await call('olga', 'POST', `/flows/${source.id}/commit`, {}), 201);
    const copy = await json(await call('olga', 'POST', `/flows/${source.id}/duplicate`, {}), 201);
    expect(copy).toMatchObject({ name: 'Template (copy)', latest_version: 0, draft: chain('a', 'b') });
    expect(await versionRows(copy.id)).toEqual([]);
    expect((await json(await call('olga', 'POST', `/flows/${source.id}/duplicate`, {}), 201)).name).toBe('Template (copy 2)');
    expect((await json(await call('olga', 'POST', `/flows/${source.id}/duplicate`, { name: 'Named copy' }), 201)).name).toBe('Named copy');
    expect(await problem(await call('olga', 'POST', `/flows/${source.id}/duplicate`, { name: 'Template' }))).toEqual({
      status: 409,
      code: 'conflict',
    });
    expect((await audits(copy.id))[0]).toMatchObject({
      event_type: 'entity.created',
      details_json: { duplicated_from: { id: source.id } },
    });
  });
});

describe('interface, launch contract and validation', () => {
  const definition = {
    steps: [{ ...sleep('a'), target_role: 'core' }],
    inputs: [
      { name: 'ticket', type: 'string', required: true, pattern: 'CHG[0-9]+' },
      { name: 'wait', type: 'integer', min: 1, max: 60, default: 5 },
    ],
    target_roles: [{ name: 'core', min_devices: 1 }],
  };

  it('gives the draft interface, and the launch contract of the newest version', async () => {
    const { id } = await createFlow('Launchable', definition);
    const iface = await json(await call('vic', 'GET', `/flows/${id}/interface`), 200);
    expect(iface).toMatchObject({ flow_id: id, version: 'draft', inputs: definition.inputs, target_roles: definition.target_roles });
    expect(iface.params_schema).toMatchObject({
      type: 'object',
      required: ['ticket'],
      properties: { wait: { type: 'integer', minimum: 1, maximum: 60, default: 5 } },
    });

    expect(await json(await call('vic', 'GET', `/flows/${id}/launch-contract`), 200)).toMatchObject({
      version: null,
      launchable: false,
      reasons: ['never_committed'],
    });
    await json(await call('olga', 'POST', `/flows/${id}/commit`, {}), 201);
    await json(await call('olga', 'PATCH', `/flows/${id}/manual-runs`, { enabled: false }), 200);
    expect(await json(await call('vic', 'GET', `/flows/${id}/launch-contract`), 200)).toMatchObject({
      version: 1,
      launchable: true,
      manual_runs_enabled: false,
      reasons: ['manual_runs_disabled'],
      target_roles: [{ name: 'core', min_devices: 1, max_devices: null }],
    });
    expect(await problem(await call('vic', 'GET', `/flows/${id}/launch-contract?version=2`))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
    expect((await json(await call('vic', 'GET', `/flows/${id}/interface?version=1`), 200)).version).toBe(1);
  });

  it('validates a submitted definition or the stored draft without saving', async () => {
    const { id } = await createFlow('Validate me', chain('a'));
    expect(await json(await call('vic', 'POST', `/flows/${id}/validate`, {}), 200)).toEqual({ valid: true, issues: [] });
    const broken = await json(
      await call('vic', 'POST', `/flows/${id}/validate`, { definition: { steps: [sleep('a')], edges: [{ from: 'a', to: 'a' }] } }),
      200,
    );
    expect(broken).toMatchObject({ valid: false, issues: [{ path: 'edges[0]', code: 'self_edge' }] });
    const shape = await json(await call('vic', 'POST', `/flows/${id}/validate`, { definition: { steps: 'none' } }), 200);
    expect(shape).toMatchObject({ valid: false, issues: [{ path: 'steps', code: 'invalid_shape' }] });
    expect((await flowRow(id)).draft_json).toEqual({ ...chain('a'), inputs: [], target_roles: [] });
  });

  it('lists the input field types', async () => {
    const types = await json(await call('vic', 'GET', '/flow-interface/field-types'), 200);
    expect(types.items.map((t: { type: string }) => t.type)).toEqual([
      'string',
      'text',
      'integer',
      'number',
      'boolean',
      'select',
      'multiselect',
      'json',
    ]);
  });
});
