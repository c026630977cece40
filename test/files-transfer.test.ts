import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Answer } from './helpers/webhooks-fixtures.js';
import {
  createRepository,
  downloadHash,
  patterned,
  s3Config,
  sha256,
  startFilesWorld,
  startS3,
  uploadStream,
  type FilesWorld,
  type S3Server,
} from './helpers/files-fixtures.js';

const INTERNAL_TOKEN = 'files-internal-0123456789-abcdef';
const DEVICE_BASE = 'http://svc.devices.example:8443';

/** Samples the process's resident memory while `work` runs: the most it grew by (the daemon runs in this process). */
async function rssGrowth(work: () => Promise<unknown>): Promise<number> {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, process.memoryUsage().rss) - before;
}

async function internal(world: FilesWorld, path: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${world.url}${path}`, {
    method: 'POST',
    headers: { 'x-internal-token': INTERNAL_TOKEN, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

/** The path and query of a presigned URL, against the test daemon. */
function pathOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
}

/** Transfers, presigned URLs and connection checks on both kinds of repository, in one daemon. */
describe('file transfers on local and S3 repositories', () => {
  let world: FilesWorld;
  let s3: S3Server;
  const repos: Record<'local' | 's3', string> = { local: '', s3: '' };

  beforeAll(async () => {
    s3 = await startS3();
    world = await startFilesWorld({ SERVICE_INTERNAL_API_TOKEN: INTERNAL_TOKEN, SERVICE_DEVICE_DOWNLOAD_BASE_URL: DEVICE_BASE });
    repos.local = await createRepository(world, { kind: 'local', name: 'local' });
    repos.s3 = await createRepository(world, { kind: 's3', name: 's3', config: await s3Config(world, s3) });
    // Two servers and a daemon: on a loaded host this passed the default minute once.
  }, 180_000);
  afterAll(async () => {
    await world?.close();
    await s3?.close();
  });

  describe.each(['local', 's3'] as const)('a %s repository', (kind) => {
    it('passes the connection test: reach, write, read, delete', async () => {
      const report = await call(world, 'alice', 'POST', `/file-repositories/${repos[kind]}/test-connection`);
      expect(report.body).toEqual({
        ok: true,
        checks: [
          { check: 'reach', ok: true },
          { check: 'write', ok: true },
          { check: 'read', ok: true },
          { check: 'delete', ok: true },
        ],
      });
    });

    it('uploads 1 B and 10 MB and downloads them byte-identical', async () => {
      for (const bytes of [Buffer.from('z'), Buffer.alloc(10 * 1024 * 1024, 3)]) {
        const up = await uploadStream(world, repos[kind], { name: `small-${bytes.length}` }, bytes);
        expect([up.status, up.body.sha256]).toEqual([201, sha256(bytes)]);
        const down = await downloadHash(world, `/files/${up.body.id}/download`, 'carol');
        expect([down.status, down.size, down.sha256]).toEqual([200, bytes.length, sha256(bytes)]);
      }
    });

    it('streams 200 MB up and down byte-identical while memory stays flat', { timeout: 180_000 }, async () => {
      const size = 200 * 1024 * 1024;
      const source = patterned(size);
      let id = '';
      const upGrowth = await rssGrowth(async () => {
        const up = await uploadStream(world, repos[kind], { name: 'big.bin', folder: 'big' }, source.stream());
        expect([up.status, up.body.size_bytes, up.body.sha256]).toEqual([201, size, source.sha256]);
        id = up.body.id;
      });
      let down = { status: 0, size: 0, sha256: '' };
      const downGrowth = await rssGrowth(async () => {
        down = await downloadHash(world, `/files/${id}/download`, 'carol');
      });
      expect([down.status, down.size, down.sha256]).toEqual([200, size, source.sha256]);
      // Neither way holds the file: the growth stays far below its 200 MB.
      expect(upGrowth).toBeLessThan(100 * 1024 * 1024);
      expect(downGrowth).toBeLessThan(100 * 1024 * 1024);
    });

    it('serves a presigned URL without a credential within its lifetime (more than once), and refuses it after, altered, for another file or method, or once the bytes change', async () => {
      const up = await uploadStream(world, repos[kind], { name: 'signed.txt' }, Buffer.from('v1'));
      const made = await call(world, 'carol', 'POST', `/files/${up.body.id}/download-url`, { expires_in: 60 });
      expect([made.status, made.body]).toEqual([200, expect.anything()]);
      const path = pathOf(made.body.url);
      expect(path.startsWith(`/files/${up.body.id}/signed.txt?`)).toBe(true);
      const fetched = await downloadHash(world, path);
      expect([fetched.status, fetched.sha256]).toEqual([200, sha256(Buffer.from('v1'))]);
      // Another first character of the signature (one in 64 signatures starts with A already).
      const altered = await fetch(
        `${world.url}${path.replace(/signature=(.)/, (_, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`)}`,
      );
      expect([altered.status, ((await altered.json()) as { code: string }).code]).toEqual([403, 'signed_url_invalid']);
      const otherFile = await uploadStream(world, repos[kind], { name: 'other.txt' }, Buffer.from('other'));
      const swapped = await fetch(`${world.url}${path.replace(up.body.id, otherFile.body.id)}`);
      expect([swapped.status, ((await swapped.json()) as { code: string }).code]).toEqual([403, 'signed_url_invalid']);
      // Made for GET: with another method the signature is no credential, and the file stays.
      const query = new URL(made.body.url).search;
      const deleted = await fetch(`${world.url}/files/${up.body.id}${query}`, { method: 'DELETE' });
      expect(deleted.status).toBe(401);
      const moved = await fetch(`${world.url}/files/${up.body.id}/move${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'taken.txt' }),
      });
      expect(moved.status).toBe(401);
      expect((await call(world, 'carol', 'GET', `/files/${up.body.id}`)).body.name).toBe('signed.txt');
      // Reusable within its lifetime (a device retrying a download), as S3's presigned URLs are.
      expect((await downloadHash(world, path)).status).toBe(200);
      world.clock.advance(61_000);
      const expired = await fetch(`${world.url}${path}`);
      expect([expired.status, ((await expired.json()) as { code: string }).code]).toEqual([403, 'signed_url_expired']);
      world.clock.advance(-61_000);
      await uploadStream(world, repos[kind], { name: 'signed.txt', overwrite: 'true' }, Buffer.from('v2'));
      const changed = await fetch(`${world.url}${path}`);
      expect([changed.status, ((await changed.json()) as { code: string }).code]).toEqual([403, 'signed_url_invalid']);
      const unsigned = await fetch(`${world.url}/files/${up.body.id}/signed.txt`);
      expect(unsigned.status).toBe(401);
    });

    it('gives a worker a device download URL on the devices’ base address', async () => {
      const up = await uploadStream(world, repos[kind], { name: 'ios-xe.bin' }, Buffer.from('image bytes'));
      const made = await internal(world, `/files/${up.body.id}/device-download-url`, {});
      expect(made.status).toBe(200);
      expect(made.body.url.startsWith(`${DEVICE_BASE}/files/${up.body.id}/ios-xe.bin?`)).toBe(true);
      const fetched = await downloadHash(world, pathOf(made.body.url));
      expect([fetched.status, fetched.sha256]).toEqual([200, sha256(Buffer.from('image bytes'))]);
      const refused = await fetch(`${world.url}/files/${up.body.id}/device-download-url`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      expect(refused.status).toBe(401);
    });
  });

  it('reports an S3 repository whose bucket is missing, or whose store does not answer, with coded reasons', async () => {
    const config = await s3Config(world, s3, 'acme', 'alice');
    const missing = await createRepository(world, { kind: 's3', name: 'no-bucket', config: { ...config, bucket: 'no-such-bucket' } }).catch(
      () => '',
    );
    const report = await call(world, 'alice', 'POST', `/file-repositories/${missing}/test-connection`);
    expect(report.body.ok).toBe(false);
    expect(report.body.checks[1]).toEqual({ check: 'write', ok: false, reason: 'bucket_not_found' });
    const down = await createRepository(world, { kind: 's3', name: 'down', config: { ...config, endpoint: 'http://127.0.0.1:9' } });
    const unreachable = await call(world, 'alice', 'POST', `/file-repositories/${down}/test-connection`);
    expect(unreachable.body.checks[0]).toEqual({ check: 'reach', ok: false, reason: 'unreachable' });
    // An upload to a store that does not answer is the store's 503, not the database's nor a 500.
    const refused = await uploadStream(world, down, { name: 'nowhere.txt' }, Buffer.from('kept nowhere'));
    expect([refused.status, refused.body.code]).toEqual([503, 'file_store_unavailable']);
    expect(await world.knex()('files').where({ repository_id: down })).toHaveLength(0);
  });

  it('answers 503 for a repository whose credential secret no longer resolves, and says why in test-connection', async () => {
    const gone = await createRepository(world, {
      kind: 's3',
      name: 'gone-credentials',
      config: await s3Config(world, s3, 'acme', 'alice'),
    });
    const row = await world.knex()('file_repositories').where({ id: gone }).first('config_json');
    const broken = { ...row.config_json, secret_access_key_ref: 'builtin://orgs/acme/secrets/no-longer-here' };
    await world
      .knex()('file_repositories')
      .where({ id: gone })
      .update({ config_json: JSON.stringify(broken), updated_at: new Date() });
    const refused = await uploadStream(world, gone, { name: 'never.txt' }, Buffer.from('never kept'));
    expect([refused.status, refused.body.code]).toEqual([503, 'file_store_unavailable']);
    expect(await world.knex()('files').where({ repository_id: gone })).toHaveLength(0);
    const report = await call(world, 'alice', 'POST', `/file-repositories/${gone}/test-connection`);
    expect(report.body.checks[0]).toEqual({ check: 'reach', ok: false, reason: 'credentials_unresolved' });
  });

  it('refuses S3 credentials that are not secret references of the organization (422 secret_reference_unusable)', async () => {
    const config = { endpoint: s3.endpoint, region: 'us-east-1', bucket: s3.bucket };
    const plain = await call(world, 'alice', 'POST', '/file-repositories', {
      kind: 's3',
      name: 'plain',
      config: { ...config, access_key_id_ref: 'S3RVER', secret_access_key_ref: 'S3RVER' },
    });
    expect([plain.status, plain.body.code]).toEqual([422, 'validation_failed']);
    const foreign = await call(world, 'alice', 'POST', '/file-repositories', {
      kind: 's3',
      name: 'foreign',
      config: {
        ...config,
        access_key_id_ref: 'builtin://orgs/globex/secrets/key',
        secret_access_key_ref: 'builtin://orgs/globex/secrets/key',
      },
    });
    expect([foreign.status, foreign.body.code, foreign.body.reason]).toEqual([422, 'secret_reference_unusable', 'other_organization']);
    const listed = await call(world, 'carol', 'GET', `/file-repositories/${repos.s3}`);
    expect(JSON.stringify(listed.body)).not.toContain('S3RVER');
  });
});
