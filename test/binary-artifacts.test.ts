import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzip } from './helpers/artifacts-fixtures.js';
import {
  createRepository,
  s3Config,
  sha256,
  startFilesWorld,
  startS3,
  uploadStream,
  type FilesWorld,
  type S3Server,
} from './helpers/files-fixtures.js';
import { BARE, call, seedFlow } from './helpers/webhooks-fixtures.js';

const ZIP_MAX_BYTES = 64 * 1024;
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a2d0a4b90000000049454e44ae426082',
  'hex',
);

/** A flow whose committed version's upgrade step names the files, and a run of it still queued (no worker here). */
async function upgradeFlowWithRun(world: FilesWorld, name: string, fileIds: string[]): Promise<{ flowId: string; runId: string }> {
  const definition = { ...BARE, steps: [{ id: 'stage', handler: 'general.noop', config: { file_ids: fileIds } }] };
  const flowId = await seedFlow(world.knex(), world.ids.acme!, { name, versions: [definition] });
  const run = await call(world, 'alice', 'POST', '/runs', { flow_id: flowId });
  expect(run.status).toBe(201);
  return { flowId, runId: run.body.id };
}

async function zipOf(world: FilesWorld, ids: string[], who = 'alice', org = 'acme') {
  const response = await fetch(`${world.url}/binary-artifacts/bulk-download`, {
    method: 'POST',
    headers: { authorization: world.as[who]!, 'x-org-id': org, 'content-type': 'application/json' },
    body: JSON.stringify({ ids }),
  });
  return { response, body: Buffer.from(await response.arrayBuffer()) };
}

/** Binary artifacts: the binary files of the file repositories, listed, zipped and purged (docs/binary-artifacts.md). */
describe('binary artifacts', () => {
  let world: FilesWorld;
  let s3: S3Server;
  let repo: string;
  const image = randomBytes(20_000);
  const ids = {} as Record<'image' | 'logo' | 'config' | 'json' | 'shared' | 'globex', string>;

  beforeAll(async () => {
    s3 = await startS3();
    world = await startFilesWorld({ SERVICE_BINARY_ARTIFACT_ZIP_MAX_BYTES: String(ZIP_MAX_BYTES) });
    repo = await createRepository(world, { kind: 'local', name: 'images' });
    const upload = async (name: string, bytes: Buffer, headers: Record<string, string> = {}) => {
      const answer = await uploadStream(world, repo, { name }, bytes, 'alice', 'acme', headers);
      expect(answer.status).toBe(201);
      return answer.body.id as string;
    };
    ids.image = await upload('ios/c9300-17.9.bin', image);
    ids.logo = await upload('logo.png', PNG, { 'content-type': 'text/plain' });
    ids.config = await upload('r1.cfg', Buffer.from('hostname r1\n'));
    ids.json = await upload('inputs.json', Buffer.from('{"a":1}'), { 'content-type': 'application/json' });
    const commons = await createRepository(world, { kind: 'local', name: 'golden' }, 'sam', 'commons');
    ids.shared = (await uploadStream(world, commons, { name: 'golden.bin' }, randomBytes(100), 'sam', 'commons')).body.id;
    const globex = await createRepository(world, { kind: 'local', name: 'globex' }, 'bob', 'globex');
    ids.globex = (await uploadStream(world, globex, { name: 'theirs.bin' }, randomBytes(100), 'bob', 'globex')).body.id;
  }, 120_000);
  afterAll(async () => {
    await world?.close();
    await s3?.close();
  });

  it('lists only binary files, with size, SHA-256, repository, usage, and the shared organization’s marked', async () => {
    const listed = await call(world, 'alice', 'GET', '/binary-artifacts');
    expect(listed.status).toBe(200);
    const byId = new Map(listed.body.items.map((a: { id: string }) => [a.id, a]));
    expect([...byId.keys()].sort()).toEqual([ids.image, ids.logo, ids.shared].sort());
    expect(listed.body.total).toBe(3);
    expect(byId.get(ids.image)).toMatchObject({
      path: 'ios/c9300-17.9.bin',
      size_bytes: image.length,
      sha256: sha256(image),
      content_type: 'application/octet-stream',
      repository_id: repo,
      repository_name: 'images',
      shared: false,
      usage: { in_use: false, flows: [], runs: [], inventory_providers: [] },
    });
    expect(byId.get(ids.logo)).toMatchObject({ content_type: 'image/png', sha256: sha256(PNG) });
    expect(byId.get(ids.shared)).toMatchObject({ shared: true, repository_name: 'golden' });
  });

  it('filters by repository, folder, name and least size, and pages', async () => {
    const listed = async (query: string) =>
      (await call(world, 'alice', 'GET', `/binary-artifacts?${query}`)).body.items.map((a: { id: string }) => a.id);
    expect(await listed(`repository_id=${repo}`)).toEqual([ids.logo, ids.image]);
    expect(await listed('folder=ios')).toEqual([ids.image]);
    expect(await listed('q=LOGO')).toEqual([ids.logo]);
    expect(await listed('min_size=10000')).toEqual([ids.image]);
    const page = await call(world, 'alice', 'GET', `/binary-artifacts?repository_id=${repo}&limit=1&offset=1`);
    expect([page.body.total, page.body.items.map((a: { id: string }) => a.id)]).toEqual([2, [ids.image]]);
    expect((await call(world, 'alice', 'GET', '/binary-artifacts?min_size=-1')).status).toBe(422);
  });

  it('zips the artifacts asked for, streamed, each member byte-identical and uniquely named', async () => {
    // A name another member has already (the shared organization's repository of the same name), and a repository name that is no safe path.
    const sharedImages = await createRepository(world, { kind: 'local', name: 'images' }, 'sam', 'commons');
    const twin = (await uploadStream(world, sharedImages, { name: 'logo.png' }, PNG, 'sam', 'commons')).body.id as string;
    const odd = await createRepository(world, { kind: 'local', name: 'images/../x' });
    const clash = (await uploadStream(world, odd, { name: 'logo.png' }, PNG)).body.id as string;
    const drive = await createRepository(world, { kind: 'local', name: 'c:drive' });
    const onDrive = (await uploadStream(world, drive, { name: 'logo.png' }, PNG)).body.id as string;
    const { response, body } = await zipOf(world, [ids.image, ids.logo, ids.shared, twin, clash, onDrive, ids.image]);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('content-length')).toBeNull();
    const entries = await unzip(body);
    expect([...entries.keys()]).toEqual([
      'images/ios/c9300-17.9.bin',
      'images/logo.png',
      'golden/golden.bin',
      `images/logo~${twin.slice(0, 8)}.png`,
      'images_.._x/logo.png',
      'c_drive/logo.png',
    ]);
    expect(entries.get('images/ios/c9300-17.9.bin')!.equals(image)).toBe(true);
    expect(entries.get('images/logo.png')!.equals(PNG)).toBe(true);
    expect(sha256(entries.get('golden/golden.bin')!)).toBe((await call(world, 'alice', 'GET', `/files/${ids.shared}`)).body.sha256);
  });

  it('refuses a zip past its cap (413), a text file or another organization’s id (404), before any byte', async () => {
    const big = (await uploadStream(world, repo, { name: 'big.bin' }, randomBytes(ZIP_MAX_BYTES))).body.id as string;
    const tooLarge = await zipOf(world, [big, ids.image]);
    expect([tooLarge.response.status, JSON.parse(tooLarge.body.toString()).code]).toEqual([413, 'bulk_download_too_large']);
    for (const id of [ids.config, ids.globex]) {
      const refused = await zipOf(world, [ids.image, id]);
      expect([refused.response.status, JSON.parse(refused.body.toString()).code]).toEqual([404, 'resource_not_found']);
    }
    await call(world, 'alice', 'DELETE', `/binary-artifacts/${big}`);
  });

  it('refuses to delete an artifact an upgrade flow and its unfinished run use (409 file_in_use, nothing deleted), and deletes with force', async () => {
    const a = (await uploadStream(world, repo, { name: 'a.bin' }, randomBytes(64))).body.id as string;
    const b = (await uploadStream(world, repo, { name: 'b.bin' }, randomBytes(64))).body.id as string;
    const { flowId, runId } = await upgradeFlowWithRun(world, 'upgrade-c9300', [b]);
    const listed = await call(world, 'alice', 'GET', '/binary-artifacts?q=b.bin');
    expect(listed.body.items[0].usage).toMatchObject({ in_use: true, flows: [{ flow_id: flowId }], runs: [{ run_id: runId }] });

    const bulk = await call(world, 'alice', 'POST', '/binary-artifacts/bulk-delete', { ids: [a, b] });
    expect([bulk.status, bulk.body.code, bulk.body.flows, bulk.body.runs]).toEqual([409, 'file_in_use', [flowId], [runId]]);
    expect(bulk.body.files).toEqual([{ file_id: b, flows: [flowId], runs: [runId], inventory_providers: [] }]);
    const one = await call(world, 'alice', 'DELETE', `/binary-artifacts/${b}`);
    expect([one.status, one.body.code]).toEqual([409, 'file_in_use']);
    expect(await world.knex()('files').whereIn('id', [a, b]).pluck('id')).toHaveLength(2);

    const forced = await call(world, 'alice', 'POST', '/binary-artifacts/bulk-delete', { ids: [a, b], force: true });
    expect(forced.status).toBe(200);
    expect(forced.body.deleted).toEqual([
      { id: a, path: 'a.bin', repository_id: repo, forced: false },
      { id: b, path: 'b.bin', repository_id: repo, forced: true },
    ]);
    expect(await world.knex()('files').whereIn('id', [a, b]).pluck('id')).toEqual([]);
    const audited = await world.knex()('audit_logs').whereIn('resource_id', [a, b]).where({ event_type: 'entity.purged' });
    expect(audited.map((e: { action: string; resource_id: string }) => [e.resource_id, e.action]).sort()).toEqual(
      [
        [a, 'binary_artifact:purge'],
        [b, 'binary_artifact:purge'],
      ].sort(),
    );
  });

  it('refuses the whole bulk delete for another organization’s id (404), a text file (404) or the shared organization’s (403)', async () => {
    const mine = (await uploadStream(world, repo, { name: 'mine.bin' }, randomBytes(64))).body.id as string;
    for (const [other, status] of [
      [ids.globex, 404],
      [ids.config, 404],
      [ids.shared, 403],
    ] as const) {
      const refused = await call(world, 'alice', 'POST', '/binary-artifacts/bulk-delete', { ids: [mine, other] });
      expect(refused.status).toBe(status);
    }
    expect((await call(world, 'alice', 'DELETE', `/binary-artifacts/${ids.config}`)).status).toBe(404);
    expect((await call(world, 'bob', 'DELETE', `/binary-artifacts/${mine}`, undefined, 'globex')).status).toBe(404);
    expect(await world.knex()('files').where({ id: mine }).first()).toBeDefined();
    expect((await call(world, 'alice', 'DELETE', `/binary-artifacts/${mine}`)).status).toBe(204);
    expect(await world.knex()('files').where({ id: mine }).first()).toBeUndefined();
  });

  it('is for organization admins: viewers and operators are refused (403)', async () => {
    for (const who of ['carol', 'dave']) {
      expect((await call(world, who, 'GET', '/binary-artifacts')).status).toBe(403);
      expect((await zipOf(world, [ids.image], who)).response.status).toBe(403);
      expect((await call(world, who, 'POST', '/binary-artifacts/bulk-delete', { ids: [ids.image] })).status).toBe(403);
      expect((await call(world, who, 'DELETE', `/binary-artifacts/${ids.image}`)).status).toBe(403);
    }
    const theirs = await call(world, 'bob', 'GET', '/binary-artifacts', undefined, 'globex');
    expect(theirs.body.items.map((a: { id: string }) => a.id)).toContain(ids.globex);
    expect(theirs.body.items.every((a: { org_id: string }) => [world.ids.globex, world.ids.commons].includes(a.org_id))).toBe(true);
  });

  it('lists, zips and deletes the artifacts of an S3 repository', async () => {
    const bucket = await createRepository(world, { kind: 's3', name: 's3-images', config: await s3Config(world, s3) });
    const bytes = randomBytes(30_000);
    const id = (await uploadStream(world, bucket, { name: 'nxos.bin' }, bytes)).body.id as string;
    const listed = await call(world, 'alice', 'GET', `/binary-artifacts?repository_id=${bucket}`);
    expect(listed.body.items.map((a: { id: string; sha256: string }) => [a.id, a.sha256])).toEqual([[id, sha256(bytes)]]);
    const { response, body } = await zipOf(world, [id]);
    expect(response.status).toBe(200);
    expect((await unzip(body)).get('s3-images/nxos.bin')!.equals(bytes)).toBe(true);
    expect((await call(world, 'alice', 'DELETE', `/binary-artifacts/${id}`)).status).toBe(204);
    expect((await call(world, 'alice', 'GET', `/binary-artifacts?repository_id=${bucket}`)).body.total).toBe(0);
  });
});
