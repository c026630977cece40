import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { downloadHash, sha256 } from './helpers/files-fixtures.js';
import { internalGet, uploadAttachment, uploadZip, zipOf } from './helpers/attachments-fixtures.js';
import { BARE, call, seedFlow, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

/**
 * Flow attachments over HTTP on a real database: upload, list, download, bulk upload of a tree, bulk
 * rename, move, delete, limits, path rules, tenancy; committed versions pinning what they were committed
 * with, as the workers' internal routes answer it.
 */

const TOKEN = 'attachments-internal-token-0123456789abcdef';
const LIMITS = {
  SERVICE_INTERNAL_API_TOKEN: TOKEN,
  SERVICE_ATTACHMENT_MAX_BYTES: '4096',
  SERVICE_ATTACHMENT_BULK_MAX_FILES: '5',
  SERVICE_ATTACHMENT_BULK_MAX_BYTES: '8192',
};

const PLAYBOOK: FlowDefinition = {
  steps: [
    {
      id: 'play',
      handler: 'playbook.run',
      config: { playbook: 'site.yml', mounted_files: { include: ['site.yml', 'roles/'] } },
    },
  ],
  edges: [],
  inputs: [],
  target_roles: [],
};

let world: World;

async function newFlow(name: string, definition: FlowDefinition = BARE, who = 'alice', org = 'acme'): Promise<string> {
  const created = await call(world, who, 'POST', '/flows', { name, definition }, org);
  if (created.status !== 201) throw new Error(`POST /flows answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

beforeAll(async () => {
  world = await startWorld(LIMITS);
});
afterAll(async () => {
  await world?.close();
});

describe('one attachment at a time', () => {
  let flow: string;
  beforeAll(async () => {
    flow = await newFlow('single');
  });

  it('uploads, lists and downloads byte-identical, with SHA-256, size and sniffed type; ETag answers 304', async () => {
    const bytes = Buffer.from('- hosts: all\n  tasks: []\n');
    const up = await uploadAttachment(world, flow, 'site.yml', bytes);
    expect(up.status).toBe(201);
    expect(up.body).toMatchObject({ path: 'site.yml', folder: '', name: 'site.yml', size_bytes: bytes.length, sha256: sha256(bytes) });
    expect(up.body.content_type).toBe('text/plain; charset=utf-8');
    const listed = await call(world, 'carol', 'GET', `/flows/${flow}/attachments`);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((a: { path: string }) => a.path)).toEqual(['site.yml']);
    const down = await downloadHash(world, `/flows/${flow}/attachments/${up.body.id}/download`, 'carol');
    expect({ status: down.status, size: down.size, sha256: down.sha256 }).toEqual({
      status: 200,
      size: bytes.length,
      sha256: sha256(bytes),
    });
    expect(down.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(down.headers.get('content-disposition')).toBe('attachment; filename="site.yml"');
    const again = await fetch(`${world.url}/flows/${flow}/attachments/${up.body.id}/download`, {
      headers: { authorization: world.as.carol!, 'x-org-id': 'acme', 'if-none-match': `"${sha256(bytes)}"` },
    });
    expect(again.status).toBe(304);
    // If-None-Match compares weakly: the tag a compressing proxy weakened still names these bytes.
    const weak = await fetch(`${world.url}/flows/${flow}/attachments/${up.body.id}/download`, {
      headers: { authorization: world.as.carol!, 'x-org-id': 'acme', 'if-none-match': `"other", W/"${sha256(bytes)}"` },
    });
    expect(weak.status).toBe(304);
    const one = await call(world, 'carol', 'GET', `/flows/${flow}/attachments/${up.body.id}`);
    expect(one.body).toMatchObject({ id: up.body.id, read_only: false });
  });

  it('refuses a taken path with 409 unless overwrite, which keeps the id; a file where a folder is (or the reverse) is 409', async () => {
    const taken = await uploadAttachment(world, flow, 'site.yml', Buffer.from('other'));
    expect([taken.status, taken.body.code]).toEqual([409, 'attachment_exists']);
    const first = (await call(world, 'alice', 'GET', `/flows/${flow}/attachments`)).body.items[0];
    const replaced = await uploadAttachment(world, flow, 'site.yml', Buffer.from('other'), 'alice', 'acme', { overwrite: 'true' });
    expect([replaced.status, replaced.body.id, replaced.body.sha256]).toEqual([200, first.id, sha256(Buffer.from('other'))]);
    const clash = await uploadAttachment(world, flow, 'site.yml/inner.txt', Buffer.from('x'));
    expect([clash.status, clash.body.code]).toEqual([409, 'attachment_exists']);
    await uploadAttachment(world, flow, 'group_vars/all.yml', Buffer.from('a: 1'));
    const fileOverFolder = await uploadAttachment(world, flow, 'group_vars', Buffer.from('x'));
    expect([fileOverFolder.status, fileOverFolder.body.code]).toEqual([409, 'attachment_exists']);
  });

  it('refuses traversal, absolute and control-character paths with 422 invalid_file_path, storing nothing', async () => {
    const before = await world.knex()('flow_attachment_blobs').count({ n: '*' });
    for (const [path, reason] of [
      ['../escape.yml', 'traversal'],
      ['roles/../../escape.yml', 'traversal'],
      ['/etc/passwd', 'absolute'],
      ['bad\u0001name', 'control_character'],
    ] as const) {
      const answer = await uploadAttachment(world, flow, path, Buffer.from('nope'));
      expect([answer.status, answer.body.code, answer.body.reason, answer.body.field]).toEqual([422, 'invalid_file_path', reason, 'path']);
    }
    expect(await world.knex()('flow_attachment_blobs').count({ n: '*' })).toEqual(before);
  });

  it('answers 413 attachment_too_large past SERVICE_ATTACHMENT_MAX_BYTES, keeping nothing', async () => {
    const big = await uploadAttachment(world, flow, 'big.bin', Buffer.alloc(5000, 1));
    expect([big.status, big.body.code, big.body.what]).toEqual([413, 'attachment_too_large', 'file']);
    expect(await world.knex()('flow_attachments').where({ path: 'big.bin' }).first()).toBeUndefined();
  });

  it('answers 503 file_store_unavailable when the default repository cannot take the bytes, keeping nothing', async () => {
    const knex = world.knex();
    const orgId = world.ids.acme!;
    const previous = await knex('file_repositories').where({ org_id: orgId, is_default: true }).first('id');
    await knex('file_repositories').where({ org_id: orgId, is_default: true }).update({ is_default: false });
    // Credentials whose secrets do not exist: the store cannot be opened.
    const ref = 'builtin://orgs/acme/secrets/not-there';
    const config = {
      region: 'us-east-1',
      bucket: 'b',
      prefix: '',
      force_path_style: true,
      access_key_id_ref: ref,
      secret_access_key_ref: ref,
    };
    const [broken] = await knex('file_repositories')
      .insert({ org_id: orgId, name: 'unopenable-default', kind: 's3', is_default: true, config_json: JSON.stringify(config) })
      .returning('id');
    try {
      const up = await uploadAttachment(world, flow, 'nowhere.yml', Buffer.from('- hosts: all\n'));
      expect([up.status, up.body.code]).toEqual([503, 'file_store_unavailable']);
      expect(await knex('flow_attachments').where({ path: 'nowhere.yml' }).first()).toBeUndefined();
    } finally {
      await knex('file_repositories')
        .where({ id: (broken as { id: string }).id })
        .delete();
      if (previous) await knex('file_repositories').where({ id: previous.id }).update({ is_default: true });
    }
  });

  it('moves one with PATCH (rows only) and deletes one; both audited', async () => {
    const up = await uploadAttachment(world, flow, 'old/name.txt', Buffer.from('move me'));
    const blob = (await world.knex()('flow_attachments').where({ id: up.body.id }).first()).blob_id;
    const moved = await call(world, 'alice', 'PATCH', `/flows/${flow}/attachments/${up.body.id}`, { path: 'new/place.txt' });
    expect(moved.body).toMatchObject({ id: up.body.id, path: 'new/place.txt', folder: 'new', name: 'place.txt' });
    expect((await world.knex()('flow_attachments').where({ id: up.body.id }).first()).blob_id).toBe(blob);
    const onto = await call(world, 'alice', 'PATCH', `/flows/${flow}/attachments/${up.body.id}`, { path: 'site.yml' });
    expect([onto.status, onto.body.code]).toEqual([409, 'attachment_exists']);
    expect((await call(world, 'alice', 'DELETE', `/flows/${flow}/attachments/${up.body.id}`)).status).toBe(204);
    expect((await call(world, 'alice', 'GET', `/flows/${flow}/attachments/${up.body.id}`)).status).toBe(404);
    // Nothing else held those bytes: the blob went with the attachment.
    expect(await world.knex()('flow_attachment_blobs').where({ id: blob }).first()).toBeUndefined();
    const events = await world
      .knex()('audit_logs')
      .where({ resource_type: 'flow_attachment', resource_id: up.body.id })
      .pluck('event_type');
    expect(events).toEqual(expect.arrayContaining(['entity.created', 'entity.updated', 'entity.deleted']));
  });

  it('moves and deletes one named in capitals (flow and attachment), audited under the ids as the database writes them', async () => {
    const up = await uploadAttachment(world, flow, 'caps/one.txt', Buffer.from('caps'));
    const id: string = up.body.id;
    const at = `/flows/${flow.toUpperCase()}/attachments/${id.toUpperCase()}`;
    // The draft's attachments are compared with the id in code: the path's capitals found none (404).
    const moved = await call(world, 'alice', 'PATCH', at, { path: 'caps/two.txt' });
    expect([moved.status, moved.body.id]).toEqual([200, id]);
    expect((await call(world, 'alice', 'DELETE', at)).status).toBe(204);
    const events = await world.knex()('audit_logs').where({ resource_type: 'flow_attachment', resource_id: id }).pluck('event_type');
    expect(events).toEqual(expect.arrayContaining(['entity.created', 'entity.updated', 'entity.deleted']));
  });
});

describe('bulk upload and bulk rename', () => {
  let flow: string;
  beforeAll(async () => {
    flow = await newFlow('bulk');
  });

  it('uploads a nested tree from one zip, under a folder, all at once', async () => {
    const tree = {
      'site.yml': '- import_playbook: roles.yml\n',
      'roles/ntp/tasks/main.yml': '- debug: {}\n',
      'roles/ntp/defaults/main.yml': 'ntp: 10.0.0.1\n',
      'group_vars/all.yml': 'x: 1\n',
    };
    const answer = await uploadZip(world, flow, await zipOf(tree), { folder: 'ansible' });
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ created: 4, replaced: 0 });
    const listed = await call(world, 'carol', 'GET', `/flows/${flow}/attachments?folder=ansible/roles`);
    expect(listed.body.items.map((a: { path: string }) => a.path)).toEqual([
      'ansible/roles/ntp/defaults/main.yml',
      'ansible/roles/ntp/tasks/main.yml',
    ]);
    const item = listed.body.items[1];
    const down = await downloadHash(world, `/flows/${flow}/attachments/${item.id}/download`, 'carol');
    expect(down.sha256).toBe(sha256(Buffer.from(tree['roles/ntp/tasks/main.yml'])));
    const again = await uploadZip(world, flow, await zipOf({ 'site.yml': 'changed' }), { folder: 'ansible' });
    expect([again.status, again.body.code]).toEqual([409, 'attachment_exists']);
    const overwritten = await uploadZip(world, flow, await zipOf({ 'site.yml': 'changed' }), { folder: 'ansible', overwrite: 'true' });
    expect(overwritten.body).toMatchObject({ created: 0, replaced: 1 });
  });

  it('reads UTF-8 entry names the archive does not flag as such, as Info-ZIP writes them; a decomposed search finds them', async () => {
    const zip = await zipOf({ 'roles/ünï/main.yml': 'a\n', 'roles/📁.yml': 'b\n', 'plain.yml': 'c\n' });
    // Clear the UTF-8 flag (bit 11) of every local and central header, as `zip -r` on Linux leaves it.
    for (const [signature, flagsAt] of [
      [0x04034b50, 6],
      [0x02014b50, 8],
    ] as const) {
      for (
        let at = zip.indexOf(Buffer.from(new Uint32Array([signature]).buffer));
        at !== -1;
        at = zip.indexOf(Buffer.from(new Uint32Array([signature]).buffer), at + 4)
      )
        zip.writeUInt16LE(zip.readUInt16LE(at + flagsAt) & ~0x800, at + flagsAt);
    }
    const own = await newFlow('unflagged');
    const answer = await uploadZip(world, own, zip, { folder: 'unflagged' });
    expect(answer.status).toBe(201);
    const listed = await call(world, 'carol', 'GET', `/flows/${own}/attachments?folder=unflagged`);
    expect(listed.body.items.map((a: { path: string }) => a.path).sort()).toEqual(
      ['unflagged/plain.yml', 'unflagged/roles/ünï/main.yml', 'unflagged/roles/📁.yml'].sort(),
    );
    // Paths are kept NFC; a search typed decomposed finds them too.
    const decomposed = await call(world, 'carol', 'GET', `/flows/${own}/attachments?q=${encodeURIComponent('u\u0308ni\u0308')}`);
    expect(decomposed.body.items.map((a: { path: string }) => a.path)).toEqual(['unflagged/roles/ünï/main.yml']);
  });

  it('refuses a zip over the file count or byte limits with 413, and a body that is no zip with 422, keeping nothing', async () => {
    const count = async () => Number((await world.knex()('flow_attachments').where({ flow_id: flow }).count({ n: '*' }))[0]!.n);
    const before = await count();
    const many = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`many/${i}.txt`, `${i}`]));
    const tooMany = await uploadZip(world, flow, await zipOf(many));
    expect([tooMany.status, tooMany.body.code, tooMany.body.what]).toEqual([413, 'attachment_too_large', 'files']);
    const heavy = await uploadZip(
      world,
      flow,
      await zipOf({ 'a.bin': Buffer.alloc(4000, 1), 'b.bin': Buffer.alloc(4000, 2), 'c.bin': Buffer.alloc(4000, 3) }),
    );
    expect([heavy.status, heavy.body.code, heavy.body.what]).toEqual([413, 'attachment_too_large', 'bytes']);
    const oneTooBig = await uploadZip(world, flow, await zipOf({ 'ok.txt': 'fine', 'big.bin': Buffer.alloc(5000, 1) }));
    expect([oneTooBig.status, oneTooBig.body.code, oneTooBig.body.what]).toEqual([413, 'attachment_too_large', 'file']);
    const notZip = await uploadZip(world, flow, Buffer.from('this is not a zip archive at all'));
    expect([notZip.status, notZip.body.code]).toEqual([422, 'attachment_archive_invalid']);
    expect(await count()).toBe(before);
    expect(await world.knex()('flow_attachments').where({ path: 'ok.txt' }).first()).toBeUndefined();
  });

  it('renames folders and files together, atomically; a collision is 409 and a from naming nothing 422, changing nothing', async () => {
    const renamed = await call(world, 'alice', 'POST', `/flows/${flow}/attachments/bulk-rename`, {
      renames: [
        { from: 'ansible/roles/', to: 'ansible/roles-v2/' },
        { from: 'ansible/site.yml', to: 'ansible/main.yml' },
      ],
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.moved).toBe(3);
    const paths = (await call(world, 'carol', 'GET', `/flows/${flow}/attachments`)).body.items.map((a: { path: string }) => a.path);
    expect(paths).toEqual([
      'ansible/group_vars/all.yml',
      'ansible/main.yml',
      'ansible/roles-v2/ntp/defaults/main.yml',
      'ansible/roles-v2/ntp/tasks/main.yml',
    ]);
    const collide = await call(world, 'alice', 'POST', `/flows/${flow}/attachments/bulk-rename`, {
      renames: [
        { from: 'ansible/main.yml', to: 'ansible/x.yml' },
        { from: 'ansible/group_vars/all.yml', to: 'ansible/x.yml' },
      ],
    });
    expect([collide.status, collide.body.code]).toEqual([409, 'attachment_exists']);
    const unknown = await call(world, 'alice', 'POST', `/flows/${flow}/attachments/bulk-rename`, {
      renames: [
        { from: 'ansible/main.yml', to: 'ansible/y.yml' },
        { from: 'nothing/', to: 'else/' },
      ],
    });
    expect([unknown.status, unknown.body.code, unknown.body.errors[0].path]).toEqual([422, 'validation_failed', 'renames[1].from']);
    const swap = await call(world, 'alice', 'POST', `/flows/${flow}/attachments/bulk-rename`, {
      renames: [
        { from: 'ansible/main.yml', to: 'ansible/group_vars/all.yml' },
        { from: 'ansible/group_vars/all.yml', to: 'ansible/main.yml' },
      ],
    });
    expect([swap.status, swap.body.moved]).toEqual([200, 2]);
    const after = (await call(world, 'carol', 'GET', `/flows/${flow}/attachments`)).body.items.map((a: { path: string }) => a.path);
    expect(after).toEqual(paths);
  });
});

describe('tenancy and roles', () => {
  let own: string;
  let shared: string;
  beforeAll(async () => {
    own = await newFlow('tenancy');
    await uploadAttachment(world, own, 'a.txt', Buffer.from('a'));
    shared = await seedFlow(world.knex(), world.ids.commons!, { name: 'shared-flow' });
    const up = await uploadAttachment(world, shared, 'shared.txt', Buffer.from('shared'), 'sam', 'commons');
    expect(up.status).toBe(201);
  });

  it("answers another organization's flow 404, reads and refuses writes to the shared one's (403), and refuses a viewer's write (403)", async () => {
    expect((await call(world, 'bob', 'GET', `/flows/${own}/attachments`, undefined, 'globex')).status).toBe(404);
    expect((await uploadAttachment(world, own, 'b.txt', Buffer.from('b'), 'bob', 'globex')).status).toBe(404);
    const sharedList = await call(world, 'carol', 'GET', `/flows/${shared}/attachments`);
    expect(sharedList.body.items).toEqual([expect.objectContaining({ path: 'shared.txt', read_only: true })]);
    const write = await uploadAttachment(world, shared, 'mine.txt', Buffer.from('x'));
    expect([write.status, write.body.code]).toEqual([403, 'shared_read_only']);
    const del = await call(world, 'alice', 'DELETE', `/flows/${shared}/attachments/${sharedList.body.items[0].id}`);
    expect([del.status, del.body.code]).toEqual([403, 'shared_read_only']);
    const viewer = await uploadAttachment(world, own, 'c.txt', Buffer.from('c'), 'carol');
    expect(viewer.status).toBe(403);
    expect((await call(world, 'alice', 'GET', `/flows/${UNKNOWN_ID}/attachments`)).status).toBe(404);
    expect((await call(world, 'alice', 'GET', `/flows/${own}/attachments/${UNKNOWN_ID}`)).status).toBe(404);
  });

  it("copies the draft's attachments into a duplicate (its own or the shared organization's flow), which then change apart", async () => {
    const copy = await call(world, 'alice', 'POST', `/flows/${own}/duplicate`, { name: 'tenancy copy' });
    expect(copy.status).toBe(201);
    const copied = await call(world, 'alice', 'GET', `/flows/${copy.body.id}/attachments`);
    expect(copied.body.items).toEqual([expect.objectContaining({ path: 'a.txt', sha256: sha256(Buffer.from('a')), read_only: false })]);
    const down = await downloadHash(world, `/flows/${copy.body.id}/attachments/${copied.body.items[0].id}/download`, 'carol');
    expect([down.status, down.sha256]).toEqual([200, sha256(Buffer.from('a'))]);
    // The copy's rows are its own: a change to the source's leaves them.
    expect((await uploadAttachment(world, own, 'a.txt', Buffer.from('changed'), 'alice', 'acme', { overwrite: 'true' })).status).toBe(200);
    const after = await call(world, 'alice', 'GET', `/flows/${copy.body.id}/attachments`);
    expect(after.body.items[0].sha256).toBe(sha256(Buffer.from('a')));

    const fromShared = await call(world, 'alice', 'POST', `/flows/${shared}/duplicate`, { name: 'shared copy' });
    expect(fromShared.status).toBe(201);
    const sharedCopy = await call(world, 'alice', 'GET', `/flows/${fromShared.body.id}/attachments`);
    expect(sharedCopy.body.items).toEqual([expect.objectContaining({ path: 'shared.txt', read_only: false })]);
    const sharedDown = await downloadHash(
      world,
      `/flows/${fromShared.body.id}/attachments/${sharedCopy.body.items[0].id}/download`,
      'carol',
    );
    expect([sharedDown.status, sharedDown.sha256]).toEqual([200, sha256(Buffer.from('shared'))]);
    expect((await call(world, 'bob', 'GET', `/flows/${fromShared.body.id}/attachments`, undefined, 'globex')).status).toBe(404);
    // Its bytes were copied into acme's own repository: no acme flow depends on the shared organization's.
    const blobOrgs = await world
      .knex()('flow_attachments as a')
      .join('flow_attachment_blobs as b', 'b.id', 'a.blob_id')
      .join('file_repositories as r', 'r.id', 'b.repository_id')
      .where('a.flow_id', fromShared.body.id)
      .pluck('r.org_id');
    expect(blobOrgs).toEqual([world.ids.acme]);
  });

  it('undoes a duplicate whose attachments cannot be copied (503 attachment_unavailable, no flow left)', async () => {
    const blob = await world.knex()('flow_attachments').where({ flow_id: shared }).first('blob_id');
    const key = await world.knex()('flow_attachment_blobs').where({ id: blob.blob_id }).first('storage_key');
    await world.knex()('flow_attachment_blobs').where({ id: blob.blob_id }).update({ storage_key: 'attachments/gone' });
    try {
      const refused = await call(world, 'alice', 'POST', `/flows/${shared}/duplicate`, { name: 'broken copy' });
      expect([refused.status, refused.body.code]).toEqual([503, 'attachment_unavailable']);
      expect(Number((await world.knex()('flows').where({ name: 'broken copy' }).count({ n: '*' }))[0]!.n)).toBe(0);
    } finally {
      await world.knex()('flow_attachment_blobs').where({ id: blob.blob_id }).update({ storage_key: key.storage_key });
    }
  });
});

describe('committed versions pin their attachments', () => {
  let flow: string;
  let runId: string;
  const v1 = Buffer.from('- hosts: all # v1\n');
  const v2 = Buffer.from('- hosts: all # v2\n');
  const held = { 'x-worker-id': 'hand', 'x-run-attempt': '1' };

  beforeAll(async () => {
    flow = await newFlow('pinned', PLAYBOOK);
  });

  it('refuses a commit whose steps name attachments the draft lacks (422 with the JSON path), then commits once they exist', async () => {
    const refused = await call(world, 'alice', 'POST', `/flows/${flow}/commit`, {});
    expect([refused.status, refused.body.code]).toEqual([422, 'validation_failed']);
    expect(refused.body.errors.map((e: { path: string }) => e.path)).toEqual([
      'steps[0].config.playbook',
      'steps[0].config.mounted_files.include[0]',
      'steps[0].config.mounted_files.include[1]',
    ]);
    await uploadAttachment(world, flow, 'site.yml', v1);
    await uploadZip(world, flow, await zipOf({ 'roles/ntp/tasks/main.yml': 'x', 'other/unmounted.txt': 'y' }));
    const committed = await call(world, 'alice', 'POST', `/flows/${flow}/commit`, { message: 'v1' });
    expect(committed.status).toBe(201);
  });

  it("gives a run the version's attachments after the draft's change: the old SHA-256 and bytes, the draft's route the new", async () => {
    const started = await call(world, 'dave', 'POST', '/runs', { flow_id: flow });
    expect(started.status).toBe(201);
    runId = started.body.id;
    await world
      .knex()('runs')
      .where({ id: runId })
      .update({ status: 'running', worker_id: 'hand', attempt: 1, lease_expires_at: new Date(Date.now() + 600_000) });
    const replaced = await uploadAttachment(world, flow, 'site.yml', v2, 'alice', 'acme', { overwrite: 'true' });
    expect(replaced.status).toBe(200);

    const pinned = await internalGet(world, `/internal/runs/${runId}/attachments`, TOKEN, held);
    expect(pinned.status).toBe(200);
    expect(pinned.body).toMatchObject({ flow_id: flow, version: 1, run_id: runId });
    const site = pinned.body.items.find((i: { path: string }) => i.path === 'site.yml');
    expect(site).toMatchObject({ sha256: sha256(v1), size_bytes: v1.length });
    const bytes = await internalGet(world, site.url, TOKEN, held);
    expect([bytes.status, bytes.bytes.equals(v1)]).toEqual([200, true]);

    const draft = await internalGet(world, `/internal/flows/${flow}/attachments`, TOKEN);
    expect(draft.body.version).toBe('draft');
    expect(draft.body.items.find((i: { path: string }) => i.path === 'site.yml').sha256).toBe(sha256(v2));
    const draftBytes = await internalGet(world, `/internal/flows/${flow}/attachments?path=site.yml`, TOKEN);
    expect(draftBytes.bytes.equals(v2)).toBe(true);
  });

  it("narrows to a step's mounted_files with ?step=, and a path outside it is 404", async () => {
    const mounted = await internalGet(world, `/internal/runs/${runId}/attachments?step=play`, TOKEN, held);
    expect(mounted.body.items.map((i: { path: string }) => i.path)).toEqual(['roles/ntp/tasks/main.yml', 'site.yml']);
    const outside = await internalGet(world, `/internal/runs/${runId}/attachments?step=play&path=other/unmounted.txt`, TOKEN, held);
    expect([outside.status, outside.body.code]).toEqual([404, 'resource_not_found']);
    const noStep = await internalGet(world, `/internal/runs/${runId}/attachments?step=nope`, TOKEN, held);
    expect([noStep.status, noStep.body.code]).toEqual([422, 'validation_failed']);
  });

  it('needs the internal token, and the run held by the caller', async () => {
    const noToken = await internalGet(world, `/internal/runs/${runId}/attachments`, 'wrong-token', held);
    expect([noToken.status, noToken.body.code]).toEqual([401, 'invalid_internal_token']);
    const noTokenDraft = await internalGet(world, `/internal/flows/${flow}/attachments`, 'wrong-token');
    expect([noTokenDraft.status, noTokenDraft.body.code]).toEqual([401, 'invalid_internal_token']);
    const other = await internalGet(world, `/internal/runs/${runId}/attachments`, TOKEN, { 'x-worker-id': 'other', 'x-run-attempt': '1' });
    expect([other.status, other.body.code]).toEqual([409, 'run_not_held']);
    const bare = await internalGet(world, `/internal/runs/${runId}/attachments`, TOKEN);
    expect([bare.status, bare.body.code]).toEqual([422, 'validation_failed']);
    expect((await internalGet(world, `/internal/runs/${UNKNOWN_ID}/attachments`, TOKEN, held)).status).toBe(404);
    expect((await internalGet(world, `/internal/flows/${UNKNOWN_ID}/attachments`, TOKEN)).status).toBe(404);
  });

  it("keeps a pinned blob when the draft's attachment is deleted; a purge removes the flow's rows and the sweep their blobs", async () => {
    const site = (await call(world, 'alice', 'GET', `/flows/${flow}/attachments?q=site`)).body.items[0];
    expect((await call(world, 'alice', 'DELETE', `/flows/${flow}/attachments/${site.id}`)).status).toBe(204);
    const pinned = await internalGet(world, `/internal/runs/${runId}/attachments?path=site.yml`, TOKEN, held);
    expect(pinned.bytes.equals(v1)).toBe(true);
    const blobs = await world.knex()('flow_version_attachments').pluck('blob_id');
    await world.knex()('runs').where({ id: runId }).update({ status: 'succeeded', lease_expires_at: null });
    expect((await call(world, 'alice', 'DELETE', `/flows/${flow}/permanent`)).status).toBe(204);
    expect(await world.knex()('flow_attachments').where({ flow_id: flow }).first()).toBeUndefined();
    const tick = await fetch(`${world.url}/internal/maintenance/tick`, { method: 'POST', headers: { 'x-internal-token': TOKEN } });
    expect(tick.status).toBe(200);
    expect(await world.knex()('flow_attachment_blobs').whereIn('id', blobs).first()).toBeUndefined();
  });
});
