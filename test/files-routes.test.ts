import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKEND } from './helpers/backend.js';
import { behindRowLock } from './helpers/row-lock.js';
import { BARE } from './helpers/webhooks-fixtures.js';
import { call, seedFlow } from './helpers/webhooks-fixtures.js';
import { createRepository, downloadHash, sha256, startFilesWorld, uploadStream, type FilesWorld } from './helpers/files-fixtures.js';

const MAX = 300_000_000;
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a2d0a4b90000000049454e44ae426082',
  'hex',
);

/** Repositories, files, folders, moves, usage and tenancy on the local store (S3: files-s3.test.ts). */
describe('files and file repositories (local store)', () => {
  let world: FilesWorld;
  let repo: string;

  beforeAll(async () => {
    world = await startFilesWorld({ SERVICE_FILE_MAX_BYTES: String(MAX) });
    const ensured = await call(world, 'alice', 'POST', '/file-repositories/ensure-default');
    expect(ensured.status).toBe(201);
    repo = ensured.body.id;
  });
  afterAll(async () => {
    await world?.close();
  });

  it('ensure-default makes one local default repository per organization, then answers it', async () => {
    const again = await call(world, 'alice', 'POST', '/file-repositories/ensure-default');
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: repo, kind: 'local', is_default: true });
    const listed = await call(world, 'carol', 'GET', '/file-repositories');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((r: { id: string }) => r.id)).toContain(repo);
    expect((await call(world, 'bob', 'GET', `/file-repositories/${repo}`, undefined, 'globex')).status).toBe(404);
    expect((await call(world, 'carol', 'POST', '/file-repositories/ensure-default')).status).toBe(403);
    const kinds = await call(world, 'carol', 'GET', '/file-repositories/kinds');
    expect(kinds.body.items.map((k: { kind: string }) => k.kind)).toEqual(['local', 's3']);
  });

  it('set-default moves the default; a repository holding files is not deleted; names are unique', async () => {
    const second = await createRepository(world, { kind: 'local', name: 'second' });
    expect((await call(world, 'alice', 'POST', `/file-repositories/${second}/set-default`)).body.is_default).toBe(true);
    expect((await call(world, 'alice', 'GET', `/file-repositories/${repo}`)).body.is_default).toBe(false);
    expect((await call(world, 'alice', 'POST', '/file-repositories', { kind: 'local', name: 'second' })).status).toBe(409);
    await call(world, 'alice', 'POST', `/file-repositories/${repo}/set-default`);
    expect((await call(world, 'alice', 'DELETE', `/file-repositories/${second}`)).status).toBe(204);
    await uploadStream(world, repo, { name: 'keep.txt' }, Buffer.from('keep'));
    const refused = await call(world, 'alice', 'DELETE', `/file-repositories/${repo}`);
    expect([refused.status, refused.body.code]).toEqual([409, 'file_repository_not_empty']);
    const audited = await world.knex()('audit_logs').where({ resource_type: 'file_repository', resource_id: second }).pluck('event_type');
    expect(audited).toEqual(expect.arrayContaining(['entity.created', 'entity.deleted', 'file_repository.default_set']));
  });

  it('uploads 1 B and 10 MB and downloads them byte-identical, with SHA-256, size and sniffed type recorded', async () => {
    for (const bytes of [Buffer.from('x'), Buffer.alloc(10 * 1024 * 1024, 7)]) {
      const up = await uploadStream(world, repo, { name: `blob-${bytes.length}.bin`, folder: 'sizes' }, bytes);
      expect(up.status).toBe(201);
      expect(up.body).toMatchObject({ size_bytes: bytes.length, sha256: sha256(bytes), folder: 'sizes' });
      const down = await downloadHash(world, `/files/${up.body.id}/download`, 'carol');
      expect({ status: down.status, size: down.size, sha256: down.sha256 }).toEqual({
        status: 200,
        size: bytes.length,
        sha256: sha256(bytes),
      });
      expect(down.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
      for (const tag of [`"${sha256(bytes)}"`, `W/"${sha256(bytes)}"`, '"other", *']) {
        const cached = await fetch(`${world.url}/files/${up.body.id}/download`, {
          headers: { authorization: world.as.carol!, 'x-org-id': 'acme', 'if-none-match': tag },
        });
        expect([tag, cached.status]).toEqual([tag, 304]);
      }
      const stale = await fetch(`${world.url}/files/${up.body.id}/download`, {
        headers: { authorization: world.as.carol!, 'x-org-id': 'acme', 'if-none-match': 'W/"other"' },
      });
      expect(stale.status).toBe(200);
      await stale.arrayBuffer();
    }
    const png = await uploadStream(world, repo, { name: 'logo.txt' }, PNG, 'alice', 'acme', { 'content-type': 'text/plain' });
    expect(png.body.content_type).toBe('image/png');
    const text = await uploadStream(world, repo, { name: 'r1.cfg' }, Buffer.from('hostname r1\n'));
    expect(text.body.content_type).toBe('text/plain; charset=utf-8');
  });

  it('refuses traversal, absolute and control-character names with 422 invalid_file_path, and stores nothing', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ name: '../escape' }, 'traversal'],
      [{ name: 'a/../../escape' }, 'traversal'],
      [{ name: 'ok', folder: '../up' }, 'traversal'],
      [{ name: '/etc/passwd' }, 'absolute'],
      [{ name: 'bad\u0001name' }, 'control_character'],
      [{ name: 'win\\path' }, 'backslash'],
    ];
    for (const [query, reason] of cases) {
      const answer = await uploadStream(world, repo, query, Buffer.from('nope'));
      expect([answer.status, answer.body.code, answer.body.reason]).toEqual([422, 'invalid_file_path', reason]);
    }
    const names = await world.knex()('files').pluck('name');
    expect(names.some((n: string) => n.includes('escape') || n.includes('passwd'))).toBe(false);
  });

  it('answers 413 file_too_large for a body declared over the limit, 409 file_exists for a taken name, 422 checksum_mismatch for other bytes', async () => {
    const tooLarge = await uploadStream(world, repo, { name: 'huge.iso' }, Buffer.from('x'), 'alice', 'acme', {
      'content-length': String(MAX + 1),
    }).catch(() => undefined);
    if (tooLarge) expect([tooLarge.status, tooLarge.body?.code]).toEqual([413, 'file_too_large']);
    const first = await uploadStream(world, repo, { name: 'same.txt' }, Buffer.from('one'));
    expect(first.status).toBe(201);
    const taken = await uploadStream(world, repo, { name: 'same.txt' }, Buffer.from('two'));
    expect([taken.status, taken.body.code]).toEqual([409, 'file_exists']);
    const replaced = await uploadStream(world, repo, { name: 'same.txt', overwrite: 'true' }, Buffer.from('two'));
    expect([replaced.status, replaced.body.id, replaced.body.revision]).toEqual([200, first.body.id, 2]);
    const wrong = await uploadStream(world, repo, { name: 'sum.txt', sha256: sha256(Buffer.from('other')) }, Buffer.from('this'));
    expect([wrong.status, wrong.body.code]).toEqual([422, 'checksum_mismatch']);
    expect(await world.knex()('files').where({ name: 'sum.txt' }).first()).toBeUndefined();
  });

  // Only PostgreSQL has a second session to hold the row while the move waits for it.
  it.skipIf(BACKEND !== 'postgres')('renames a file in the folder it is in when the move runs, not the one it was read in', async () => {
    const up = await uploadStream(world, repo, { name: 'racing/old/a.cfg' }, Buffer.from('a'));
    const renamed = await behindRowLock(
      world.knex(),
      'files',
      up.body.id,
      () => call(world, 'alice', 'POST', `/files/${up.body.id}/move`, { name: 'b.cfg' }),
      // A folder rename committed while the move waits (the folders route changes these rows alike).
      (trx) => trx('files').where({ id: up.body.id }).update({ folder: 'racing/new' }),
    );
    expect(renamed.body).toMatchObject({ folder: 'racing/new', name: 'b.cfg' });
    expect(await world.knex()('files').where({ id: up.body.id }).first()).toMatchObject({ folder: 'racing/new', name: 'b.cfg' });
  });

  it('a move by the file id in capitals is audited under the id as the database writes it', async () => {
    const up = await uploadStream(world, repo, { name: 'caps.cfg', folder: 'caps' }, Buffer.from('caps'));
    const id: string = up.body.id;
    const moved = await call(world, 'alice', 'POST', `/files/${id.toUpperCase()}/move`, { name: 'caps-moved.cfg' });
    expect(moved.status).toBe(200);
    // resource_id is text: an entry under the path's capitals is missed by a filter on the file's id.
    const entries = await world.knex()('audit_logs').where({ resource_type: 'file', event_type: 'file.moved' }).pluck('resource_id');
    expect(entries.filter((r: string) => r.toLowerCase() === id)).toEqual([id]);
  });

  it('moves and renames files and folders by changing rows only, and lists folders', async () => {
    const up = await uploadStream(world, repo, { name: 'images/ios/17.9.bin' }, Buffer.from('image'));
    expect(up.body).toMatchObject({ folder: 'images/ios', name: '17.9.bin' });
    const key = (await world.knex()('files').where({ id: up.body.id }).first()).storage_key;
    const moved = await call(world, 'alice', 'POST', `/files/${up.body.id}/move`, { folder: 'images/ios-xe', name: '17.9.1.bin' });
    expect(moved.body).toMatchObject({ folder: 'images/ios-xe', name: '17.9.1.bin', path: 'images/ios-xe/17.9.1.bin' });
    expect((await world.knex()('files').where({ id: up.body.id }).first()).storage_key).toBe(key);
    const renamed = await call(world, 'alice', 'POST', `/file-repositories/${repo}/folders/rename`, { from: 'images', to: 'firmware' });
    expect(renamed.body).toEqual({ from: 'images', to: 'firmware', files_moved: 1 });
    expect((await call(world, 'carol', 'GET', `/files/${up.body.id}`)).body.folder).toBe('firmware/ios-xe');
    const made = await call(world, 'alice', 'POST', `/file-repositories/${repo}/folders`, { path: 'empty/one' });
    expect(made.status).toBe(201);
    expect((await call(world, 'alice', 'POST', `/file-repositories/${repo}/folders`, { path: 'empty/one' })).body.code).toBe(
      'folder_exists',
    );
    const folders = await call(world, 'carol', 'GET', `/file-repositories/${repo}/folders`);
    expect(folders.body.items).toEqual(
      expect.arrayContaining([
        { path: 'empty', file_count: 0 },
        { path: 'empty/one', file_count: 0 },
        { path: 'firmware/ios-xe', file_count: 1 },
      ]),
    );
    const notEmpty = await call(world, 'alice', 'DELETE', `/file-repositories/${repo}/folders?path=firmware`);
    expect([notEmpty.status, notEmpty.body.code]).toEqual([409, 'folder_not_empty']);
    expect((await call(world, 'alice', 'DELETE', `/file-repositories/${repo}/folders?path=firmware&force=true`)).status).toBe(204);
    expect((await call(world, 'carol', 'GET', `/files/${up.body.id}`)).status).toBe(404);
  });

  it('renames a folder whose name has characters beyond the BMP, keeping its subfolders whole', async () => {
    const deep = await uploadStream(world, repo, { name: '📁 images/ios/17.bin' }, Buffer.from('deep'));
    const flat = await uploadStream(world, repo, { name: '📁 images/top.bin' }, Buffer.from('flat'));
    await call(world, 'alice', 'POST', `/file-repositories/${repo}/folders`, { path: '📁 images/empty' });
    const renamed = await call(world, 'alice', 'POST', `/file-repositories/${repo}/folders/rename`, { from: '📁 images', to: 'fw' });
    expect(renamed.body).toEqual({ from: '📁 images', to: 'fw', files_moved: 2 });
    expect((await world.knex()('files').where({ id: deep.body.id }).first()).folder).toBe('fw/ios');
    expect((await world.knex()('files').where({ id: flat.body.id }).first()).folder).toBe('fw');
    expect(await world.knex()('file_folders').where({ repository_id: repo }).where('path', 'like', 'fw%').pluck('path')).toEqual(
      expect.arrayContaining(['fw', 'fw/empty']),
    );
    expect((await call(world, 'alice', 'DELETE', `/file-repositories/${repo}/folders?path=fw&force=true`)).status).toBe(204);
  });

  it('lists files with paging and filters', async () => {
    await uploadStream(world, repo, { name: 'list/a.txt' }, Buffer.from('a'));
    await uploadStream(world, repo, { name: 'list/b.txt' }, Buffer.from('b'));
    await uploadStream(world, repo, { name: 'list/deeper/c.txt' }, Buffer.from('c'));
    const page = await call(world, 'carol', 'GET', '/files?folder=list&limit=1');
    expect([page.body.total, page.body.items.length, page.body.items[0].name]).toEqual([2, 1, 'a.txt']);
    expect((await call(world, 'carol', 'GET', '/files?folder=list&recursive=true')).body.total).toBe(3);
    expect((await call(world, 'carol', 'GET', '/files?q=deeper')).body.total).toBe(0);
    expect((await call(world, 'carol', 'GET', '/files?q=c.tx')).body.total).toBe(1);
    // Names are kept NFC; a search typed decomposed (as macOS gives it) finds them too.
    await uploadStream(world, repo, { name: 'list/r\u00e9seau.cfg' }, Buffer.from('r'));
    expect((await call(world, 'carol', 'GET', `/files?q=${encodeURIComponent('re\u0301seau')}`)).body.total).toBe(1);
    expect((await call(world, 'bob', 'GET', '/files', undefined, 'globex')).body.total).toBe(0);
  });

  it('refuses to delete a file a flow uses (409 file_in_use) unless forced, and reports the usage', async () => {
    const up = await uploadStream(world, repo, { name: 'image.bin' }, Buffer.from('os image'));
    const id = up.body.id as string;
    const definition = { ...BARE, steps: [{ id: 'upgrade', handler: 'general.noop', config: { file_id: id } }] };
    const flowId = await seedFlow(world.knex(), world.ids.acme!, { name: 'upgrade', versions: [definition] });
    const usage = await call(world, 'carol', 'GET', `/files/${id}/usage`);
    expect(usage.body).toMatchObject({ in_use: true, flows: [{ flow_id: flowId, versions: [1] }] });
    const refused = await call(world, 'alice', 'DELETE', `/files/${id}`);
    expect([refused.status, refused.body.code, refused.body.flows]).toEqual([409, 'file_in_use', [flowId]]);
    expect((await call(world, 'alice', 'DELETE', `/files/${id}?force=true`)).status).toBe(204);
    expect((await call(world, 'carol', 'GET', `/files/${id}`)).status).toBe(404);
    const purged = await world.knex()('audit_logs').where({ resource_type: 'file', resource_id: id, event_type: 'entity.purged' }).first();
    expect(purged.details_json.forced).toBe(true);
  });

  it('refuses to import from a loopback URL by default (422 import_refused, address_not_allowed), or from a non-http scheme', async () => {
    const loopback = await call(world, 'alice', 'POST', `/file-repositories/${repo}/files/import`, { url: `${world.url}/health/live` });
    expect([loopback.status, loopback.body.code, loopback.body.reason]).toEqual([422, 'import_refused', 'address_not_allowed']);
    const metadata = await call(world, 'alice', 'POST', `/file-repositories/${repo}/files/import`, {
      url: 'http://169.254.169.254/latest/meta-data/',
    });
    expect([metadata.status, metadata.body.reason]).toEqual([422, 'address_not_allowed']);
    const ftp = await call(world, 'alice', 'POST', `/file-repositories/${repo}/files/import`, { url: 'ftp://example.com/image.bin' });
    expect([ftp.status, ftp.body.code, ftp.body.reason]).toEqual([422, 'import_refused', 'scheme_not_allowed']);
    expect(await world.knex()('files').whereNotNull('source_url').first()).toBeUndefined();
  });

  it("keeps another organization's files out of sight (404) and the shared organization's read-only (403)", async () => {
    const up = await uploadStream(world, repo, { name: 'private.txt' }, Buffer.from('acme only'));
    expect((await call(world, 'bob', 'GET', `/files/${up.body.id}`, undefined, 'globex')).status).toBe(404);
    expect((await call(world, 'bob', 'DELETE', `/files/${up.body.id}`, undefined, 'globex')).status).toBe(404);
    const sharedRepo = await createRepository(world, { kind: 'local', name: 'common' }, 'sam', 'commons');
    const shared = await uploadStream(world, sharedRepo, { name: 'golden.cfg' }, Buffer.from('golden'), 'sam', 'commons');
    expect(shared.status).toBe(201);
    expect((await call(world, 'carol', 'GET', `/files/${shared.body.id}`)).status).toBe(200);
    const write = await call(world, 'alice', 'POST', `/files/${shared.body.id}/move`, { name: 'mine.cfg' });
    expect([write.status, write.body.code]).toEqual([403, 'shared_read_only']);
    const upload = await uploadStream(world, sharedRepo, { name: 'x' }, Buffer.from('x'));
    expect([upload.status, upload.body.code]).toEqual([403, 'shared_read_only']);
  });
});
