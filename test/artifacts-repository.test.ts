import { randomBytes } from 'node:crypto';
import { readdir, utimes, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placementFor } from '../src/daemon/domains/artifacts/module.js';
import { BlobMissing, type BlobStore } from '../src/daemon/storage/blob-store.js';
import { LocalBlobStore } from '../src/daemon/storage/local-blob-store.js';
import { S3BlobStore } from '../src/daemon/storage/s3-blob-store.js';
import {
  claimedRun,
  get,
  INTERNAL_TOKEN,
  sha256,
  startArtifactsWorld,
  sweepArtifacts,
  seenFromBeta,
  until,
  abandonUpload,
  unzip,
  upload,
  type ArtifactsWorld,
} from './helpers/artifacts-fixtures.js';
import { startS3, type S3Server } from './helpers/files-fixtures.js';

interface Stored {
  id: string;
  size_bytes: number;
  sha256: string;
}

async function created(response: Response, status = 201): Promise<Stored> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
  return JSON.parse(text) as Stored;
}

async function problemOf(response: Response): Promise<{ status: number; code: string }> {
  return { status: response.status, code: ((await response.json()) as { code: string }).code };
}

/** A JSON call as acme's admin. */
async function asAda(world: ArtifactsWorld, method: string, path: string, body?: unknown) {
  const response = await fetch(`${world.daemon.url}${path}`, {
    method,
    headers: { authorization: world.as.ada, 'x-org-id': 'acme', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

function internalPatch(world: ArtifactsWorld, runId: string, body: unknown) {
  return fetch(`${world.daemon.url}/internal/runs/${runId}`, {
    method: 'PATCH',
    headers: { 'x-internal-token': INTERNAL_TOKEN, 'x-worker-id': 'w1', 'x-run-attempt': '1', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

async function purge(world: ArtifactsWorld, runId: string): Promise<void> {
  expect((await internalPatch(world, runId, { status: 'succeeded' })).status).toBe(200);
  const purged = await fetch(`${world.daemon.url}/runs/${runId}/permanent`, {
    method: 'DELETE',
    headers: { authorization: world.as.ada, 'x-org-id': 'acme' },
  });
  expect(purged.status).toBe(204);
}

async function exists(store: BlobStore, key: string): Promise<boolean> {
  try {
    (await store.open(key)).destroy();
    return true;
  } catch (error) {
    if (error instanceof BlobMissing) return false;
    throw error;
  }
}

/**
 * Artifacts kept in the organization's default file repository, where SERVICE_ARTIFACT_STORE's default
 * (`repository`) puts them: a local one (made by ensure-default on the first upload) and an S3 one (s3rver).
 */
describe.each(['local', 's3'] as const)('run artifacts in a %s file repository', (kind) => {
  let world: ArtifactsWorld;
  let s3: S3Server | undefined;
  let repositoryId = '';
  /** The repository's bytes, read beside the daemon. */
  let blobs: BlobStore;

  beforeAll(async () => {
    world = await startArtifactsWorld({ SERVICE_MAINTENANCE_TIMER_ENABLED: 'false' });
    if (kind === 's3') {
      s3 = await startS3('svc-artifacts');
      for (const name of ['s3-access-key', 's3-secret-key']) {
        expect((await asAda(world, 'POST', '/secrets', { name, values: { value: 'S3RVER' } })).status).toBe(201);
      }
      const made = await asAda(world, 'POST', '/file-repositories', {
        kind: 's3',
        name: 'objects',
        config: {
          endpoint: s3.endpoint,
          region: 'us-east-1',
          bucket: s3.bucket,
          prefix: 'svc/',
          force_path_style: true,
          access_key_id_ref: 'builtin://orgs/acme/secrets/s3-access-key',
          secret_access_key_ref: 'builtin://orgs/acme/secrets/s3-secret-key',
        },
      });
      expect(made.status).toBe(201);
      repositoryId = made.body.id;
      blobs = new S3BlobStore({
        endpoint: s3.endpoint,
        region: 'us-east-1',
        bucket: s3.bucket,
        prefix: 'svc/',
        forcePathStyle: true,
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
      });
    }
  }, 120_000);
  afterAll(async () => {
    await world?.close();
    await s3?.close();
  });

  /** The default repository, once the first upload has made it (local) or as the test made it (S3). */
  async function repository(): Promise<string> {
    if (kind === 'local' && !repositoryId) {
      const row = await world
        .knex('file_repositories as r')
        .join('organizations as o', 'o.id', 'r.org_id')
        .where({ 'o.slug': 'acme', 'r.is_default': true })
        .first('r.id');
      repositoryId = row.id;
      blobs = new LocalBlobStore(join(world.daemon.services.config.dataDir, 'files', repositoryId));
    }
    return repositoryId;
  }

  it('streams an artifact into the repository and back out byte-identical, with its tag and a 304', async () => {
    const { runId } = await claimedRun(world);
    const bytes = randomBytes(3_000_000);
    const artifact = await created(await upload(world, runId, bytes, { name: 'dumps/r1.bin', chunked: true }));
    expect(artifact).toMatchObject({ size_bytes: bytes.length, sha256: sha256(bytes) });
    const row = await world.knex('run_artifacts').where({ id: artifact.id }).first('storage', 'repository_id');
    expect(row).toEqual({ storage: 'repository', repository_id: await repository() });
    if (kind === 'local') {
      const made = await world.knex('file_repositories').where({ id: repositoryId }).first('name', 'kind');
      expect(made).toEqual({ name: 'default', kind: 'local' });
    }
    expect(await exists(blobs, `artifacts/${runId}/${artifact.id}`)).toBe(true);

    const response = await get(world, `/runs/${runId}/artifacts/${artifact.id}/download`, world.as.vic);
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
    const again = await get(world, `/runs/${runId}/artifacts/${artifact.id}/download`, world.as.vic, 'acme', undefined, {
      'if-none-match': `"${artifact.sha256}"`,
    });
    expect(again.status).toBe(304);
  });

  it('zips every artifact of the run, and answers 404 to another organization', async () => {
    const { runId } = await claimedRun(world);
    const a = randomBytes(1_500_000);
    const b = Buffer.from('{"ok":true}');
    const first = await created(await upload(world, runId, a, { name: 'a.bin' }));
    await created(await upload(world, runId, b, { name: 'facts/b.json', contentType: 'application/json' }));
    const zip = await get(world, `/runs/${runId}/artifacts/download-all`, world.as.vic);
    expect(zip.status).toBe(200);
    const entries = await unzip(Buffer.from(await zip.arrayBuffer()));
    expect(entries.get('a.bin')!.equals(a)).toBe(true);
    expect(entries.get('facts/b.json')!.equals(b)).toBe(true);
    expect(await seenFromBeta(world, runId, first.id)).toEqual([
      [404, 'resource_not_found'],
      [404, 'resource_not_found'],
    ]);
  });

  it.skipIf(kind !== 's3')(
    'answers 503 when its credential secret no longer resolves: the upload keeps nothing, the download waits',
    async () => {
      const { runId } = await claimedRun(world);
      const artifact = await created(await upload(world, runId, randomBytes(1000), { name: 'before.bin' }));
      const id = await repository();
      const row = await world.knex('file_repositories').where({ id }).first('config_json');
      const broken = { ...row.config_json, secret_access_key_ref: 'builtin://orgs/acme/secrets/s3-secret-key-gone' };
      // updated_at moves so the daemon opens the store again rather than keep the one it has.
      const setConfig = (config: unknown) =>
        world
          .knex('file_repositories')
          .where({ id })
          .update({ config_json: JSON.stringify(config), updated_at: new Date() });
      await setConfig(broken);
      try {
        expect(await problemOf(await upload(world, runId, randomBytes(1000), { name: 'after.bin' }))).toEqual({
          status: 503,
          code: 'artifact_store_unavailable',
        });
        expect(await world.knex('run_artifacts').where({ run_id: runId })).toHaveLength(1);
        const download = await get(world, `/runs/${runId}/artifacts/${artifact.id}/download`, world.as.vic);
        expect(await problemOf(download)).toEqual({ status: 503, code: 'artifact_unavailable' });
      } finally {
        await setConfig(row.config_json);
      }
      expect((await get(world, `/runs/${runId}/artifacts/${artifact.id}/download`, world.as.vic)).status).toBe(200);
    },
  );

  it('refuses to delete the repository while it holds artifacts (409 file_repository_not_empty); a purge removes their bytes', async () => {
    const { runId } = await claimedRun(world);
    const artifact = await created(await upload(world, runId, randomBytes(1_200_000), { name: 'kept.bin' }));
    const id = await repository();
    // Only this run's artifacts are left in it.
    const others = await world.knex('run_artifacts').where({ repository_id: id }).whereNot({ run_id: runId }).distinct('run_id');
    for (const { run_id } of others) await purge(world, run_id);

    const refused = await asAda(world, 'DELETE', `/file-repositories/${id}`);
    expect([refused.status, refused.body.code, refused.body.artifact_count]).toEqual([409, 'file_repository_not_empty', 1]);

    await purge(world, runId);
    expect(await world.knex('run_artifacts').where({ run_id: runId })).toEqual([]);
    expect(await exists(blobs, `artifacts/${runId}/${artifact.id}`)).toBe(false);
    if (kind === 'local') {
      // Not even the run's folder is left (each purged run left one, empty, for ever).
      const folders = await readdir(join(world.daemon.services.config.dataDir, 'files', id, 'artifacts'));
      expect(folders.filter((folder) => folder === runId || others.some((other) => other.run_id === folder))).toEqual([]);
    }
    // Empty now: it may go, and the next upload (local: ensure-default) finds a default again.
    expect((await asAda(world, 'DELETE', `/file-repositories/${id}`)).status).toBe(204);
    if (kind === 'local') repositoryId = '';
    else {
      const made = await world.knex('file_repositories').where({ id }).first('id');
      expect(made).toBeUndefined();
    }
  });

  it.skipIf(kind !== 'local')('leaves nothing of an upload whose client goes away, and sweeps part files abandoned for a day', async () => {
    const { runId } = await claimedRun(world);
    await created(await upload(world, runId, Buffer.from('first'), { name: 'first.txt' }));
    const tmp = join(world.daemon.services.config.dataDir, 'files', await repository(), '.tmp');
    const parts = () => readdir(tmp).catch(() => [] as string[]);
    await abandonUpload(world, runId, async () => (await parts()).length > 0, 'half');
    await until(async () => (await parts()).length === 0);
    expect(await world.knex('run_artifacts').where({ run_id: runId, name: 'half' })).toEqual([]);
    expect(await readdir(join(tmp, '..', 'artifacts', runId))).toHaveLength(1);

    // What a daemon that died mid-upload leaves: a part file nobody writes to any more.
    await mkdir(tmp, { recursive: true });
    await writeFile(join(tmp, 'stale.part'), 'x');
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    await utimes(join(tmp, 'stale.part'), twoDaysAgo, twoDaysAgo);
    await writeFile(join(tmp, 'fresh.part'), 'x');
    expect(await sweepArtifacts(world)).toEqual({ runs_removed: 0, parts_removed: 1 });
    expect(await parts()).toEqual(['fresh.part']);
  });
});

describe('where SERVICE_ARTIFACT_STORE puts a new artifact', () => {
  const repositories = (kind?: 'local' | 's3') => ({
    ensureDefault: async () => ({ id: kind ? `repo-${kind}` : 'repo-made', kind: kind ?? ('local' as const) }),
  });

  it("repository, the default: the organization's default whatever its kind, made when missing", async () => {
    expect(await placementFor('repository', 'o', repositories('local'))).toEqual({ storage: 'repository', repositoryId: 'repo-local' });
    expect(await placementFor('repository', 'o', repositories('s3'))).toEqual({ storage: 'repository', repositoryId: 'repo-s3' });
    expect(await placementFor('repository', 'o', repositories())).toEqual({ storage: 'repository', repositoryId: 'repo-made' });
  });

  it('file and database as named, whatever the default repository', async () => {
    expect(await placementFor('file', 'o', repositories('s3'))).toEqual({ storage: 'file', repositoryId: null });
    expect(await placementFor('database', 'o', repositories('s3'))).toEqual({ storage: 'database', repositoryId: null });
  });
});
