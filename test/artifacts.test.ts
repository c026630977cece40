import { randomBytes } from 'node:crypto';
import { readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpRunCallbacks } from '../src/worker/callbacks.js';
import { InternalHttp } from '../src/worker/http-client.js';
import { CALLBACK_RETRY } from '../src/worker/retry.js';
import { BACKEND } from './helpers/backend.js';
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
  storedFor,
  unzip,
  upload,
  type ArtifactsWorld,
} from './helpers/artifacts-fixtures.js';
import type { TestDaemon } from './helpers/daemon.js';
import { secondDaemon } from './helpers/artifacts-fixtures.js';
import { UNKNOWN_ID } from './helpers/runs-fixtures.js';

const MAX = 4_000_000;
const RUN_MAX = 6_000_000;
const CAPS = { SERVICE_ARTIFACT_MAX_BYTES: String(MAX), SERVICE_ARTIFACT_RUN_MAX_BYTES: String(RUN_MAX) };

interface Stored {
  id: string;
  name: string;
  size_bytes: number;
  sha256: string;
  content_type: string;
  step_id: string | null;
}

async function problemOf(response: Response): Promise<{ status: number; code: string }> {
  return { status: response.status, code: ((await response.json()) as { code: string }).code };
}

async function created(response: Response, status = 201): Promise<Stored> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
  return JSON.parse(text) as Stored;
}

const download = (world: ArtifactsWorld, runId: string, id: string, who = world.as.vic, org = 'acme') =>
  get(world, `/runs/${runId}/artifacts/${id}/download`, who, org);

function internal(world: ArtifactsWorld, method: string, path: string, body: unknown, worker = 'w1', attempt = 1) {
  return fetch(`${world.daemon.url}${path}`, {
    method,
    headers: {
      'x-internal-token': INTERNAL_TOKEN,
      'x-worker-id': worker,
      'x-run-attempt': String(attempt),
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
}

/** Every behaviour, once for each store: files under the data directory and chunks in the database. */
describe.each(['file', 'database'] as const)('run artifacts in the %s store', (store) => {
  let world: ArtifactsWorld;

  beforeAll(async () => {
    // The sweep's test sweeps itself: the maintenance timer, under load, could sweep first.
    world = await startArtifactsWorld({ ...CAPS, SERVICE_ARTIFACT_STORE: store, SERVICE_MAINTENANCE_TIMER_ENABLED: 'false' });
  });
  afterAll(async () => {
    await world?.close();
  });

  it('streams a few MB in and back out byte-identical, with its headers, an artifact.created event and a 304 by its tag', async () => {
    const { runId } = await claimedRun(world);
    const bytes = randomBytes(3_000_000);
    const artifact = await created(await upload(world, runId, bytes, { name: 'dumps/r1 ü.bin', stepId: 'collect', chunked: true }));
    expect(artifact).toMatchObject({ name: 'dumps/r1 ü.bin', size_bytes: bytes.length, sha256: sha256(bytes), step_id: 'collect' });
    expect(artifact.content_type).toBe('application/octet-stream');
    const row = await world.knex('run_artifacts').where({ id: artifact.id }).first('storage');
    expect(row.storage).toBe(store);

    const response = await download(world, runId, artifact.id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-length')).toBe(String(bytes.length));
    expect(response.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    const disposition = response.headers.get('content-disposition')!;
    expect(disposition).toMatch(/^attachment; filename="r1 _\.bin"; filename\*=UTF-8''r1%20%C3%BC\.bin$/);
    const back = Buffer.from(await response.arrayBuffer());
    expect(sha256(back)).toBe(sha256(bytes));
    expect(back.equals(bytes)).toBe(true);

    const again = await get(world, `/runs/${runId}/artifacts/${artifact.id}/download`, world.as.vic, 'acme', undefined, {
      'if-none-match': `"${artifact.sha256}"`,
    });
    expect(again.status).toBe(304);
    // Weakly compared (RFC 9110): a proxy that compressed the answer sends back a weak tag.
    const weak = await get(world, `/runs/${runId}/artifacts/${artifact.id}/download`, world.as.vic, 'acme', undefined, {
      'if-none-match': `W/"${artifact.sha256}"`,
    });
    expect(weak.status).toBe(304);

    const events = await world.knex('run_events').where({ run_id: runId, type: 'artifact.created' }).select('data', 'step_id');
    expect(events).toEqual([
      {
        step_id: 'collect',
        data: {
          artifact_id: artifact.id,
          name: artifact.name,
          step_id: 'collect',
          content_type: 'application/octet-stream',
          size_bytes: bytes.length,
          sha256: artifact.sha256,
        },
      },
    ]);
  });

  it('keeps a small text or JSON artifact from a JSON body, and download-all zips every artifact with its bytes', async () => {
    const { runId } = await claimedRun(world);
    const text = await created(
      await internal(world, 'POST', `/internal/runs/${runId}/artifacts`, { name: 'notes.txt', content: 'héllo\n' }),
    );
    expect(text).toMatchObject({ content_type: 'text/plain; charset=utf-8', size_bytes: Buffer.byteLength('héllo\n') });
    const json = await created(
      await internal(world, 'POST', `/internal/runs/${runId}/artifacts`, { name: 'facts/r1.json', content: { a: [1, 2] } }),
    );
    expect(json.content_type).toBe('application/json');
    const binary = randomBytes(1_500_000);
    await created(await upload(world, runId, binary, { name: 'cfg/r1.cfg', contentType: 'text/plain' }));

    const response = await get(world, `/runs/${runId}/artifacts/download-all`, world.as.vic);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/zip');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename=".*-artifacts\.zip"/);
    const entries = await unzip(Buffer.from(await response.arrayBuffer()));
    expect([...entries.keys()].sort()).toEqual(['cfg/r1.cfg', 'facts/r1.json', 'notes.txt']);
    expect(entries.get('notes.txt')!.toString('utf8')).toBe('héllo\n');
    expect(JSON.parse(entries.get('facts/r1.json')!.toString('utf8'))).toEqual({ a: [1, 2] });
    expect(entries.get('cfg/r1.cfg')!.equals(binary)).toBe(true);

    const { runId: empty } = await claimedRun(world);
    const none = await get(world, `/runs/${empty}/artifacts/download-all`, world.as.vic);
    expect(none.status).toBe(200);
    expect((await unzip(Buffer.from(await none.arrayBuffer()))).size).toBe(0);
  });

  it('refuses an artifact over the per-artifact cap with 413 artifact_too_large, declared or streamed, and stores nothing', async () => {
    const { runId } = await claimedRun(world);
    const big = randomBytes(MAX + 1);
    expect(await problemOf(await upload(world, runId, big))).toEqual({ status: 413, code: 'artifact_too_large' });
    expect(await problemOf(await upload(world, runId, big, { chunked: true }))).toEqual({ status: 413, code: 'artifact_too_large' });
    expect(await storedFor(world, runId)).toEqual({ rows: 0, chunks: 0, files: [], parts: [] });
    expect(await world.knex('run_events').where({ run_id: runId, type: 'artifact.created' })).toEqual([]);
  });

  it("refuses an upload that would pass the run's cap with 413 run_artifacts_too_large, and stores nothing of it", async () => {
    const { runId } = await claimedRun(world);
    await created(await upload(world, runId, randomBytes(3_000_000), { name: 'a' }));
    const over = randomBytes(3_000_001);
    expect(await problemOf(await upload(world, runId, over, { name: 'b' }))).toEqual({ status: 413, code: 'run_artifacts_too_large' });
    expect(await problemOf(await upload(world, runId, over, { name: 'b', chunked: true }))).toEqual({
      status: 413,
      code: 'run_artifacts_too_large',
    });
    const stored = await storedFor(world, runId);
    expect(stored.rows).toBe(1);
    expect(stored.parts).toEqual([]);
    if (store === 'database') expect(stored.chunks).toBe(3);
    else expect(stored.files).toHaveLength(1);
    // Exactly up to the cap fits.
    await created(await upload(world, runId, randomBytes(3_000_000), { name: 'b' }));
  });

  it('leaves nothing of an upload whose client goes away half way', async () => {
    const { runId } = await claimedRun(world);
    await abandonUpload(world, runId, async () => {
      const now = await storedFor(world, runId);
      return store === 'database' ? now.chunks > 0 : now.parts.length > 0;
    });
    await until(async () => JSON.stringify(await storedFor(world, runId)) === JSON.stringify({ rows: 0, chunks: 0, files: [], parts: [] }));
  });

  it('answers a name taken by other bytes 409 artifact_name_taken, the same bytes again 200 with the stored artifact', async () => {
    const { runId } = await claimedRun(world);
    const bytes = randomBytes(10_000);
    const first = await created(await upload(world, runId, bytes, { name: 'x.bin' }));
    const retried = await created(await upload(world, runId, bytes, { name: 'x.bin' }), 200);
    expect(retried.id).toBe(first.id);
    expect(await problemOf(await upload(world, runId, randomBytes(10), { name: 'x.bin' }))).toEqual({
      status: 409,
      code: 'artifact_name_taken',
    });
    const stored = await storedFor(world, runId);
    expect(stored.rows).toBe(1);
    expect(store === 'database' ? stored.chunks : stored.files.length).toBe(1);
  });

  it('fences uploads as the other callbacks: wrong worker or attempt 409 run_not_held, missing headers 422, unknown run 404, a finished run 409', async () => {
    const { runId } = await claimedRun(world);
    const bytes = randomBytes(100);
    expect(await problemOf(await upload(world, runId, bytes, { worker: 'w2' }))).toEqual({ status: 409, code: 'run_not_held' });
    expect(await problemOf(await upload(world, runId, bytes, { attempt: 2 }))).toEqual({ status: 409, code: 'run_not_held' });
    expect(await problemOf(await internal(world, 'POST', `/internal/runs/${runId}/artifacts`, { name: 'n', content: 'x' }, 'w2'))).toEqual({
      status: 409,
      code: 'run_not_held',
    });
    const headerless = await fetch(`${world.daemon.url}/internal/runs/${runId}/artifacts/upload?name=n`, {
      method: 'POST',
      headers: { 'x-internal-token': INTERNAL_TOKEN },
      body: bytes,
    });
    expect(await problemOf(headerless)).toEqual({ status: 422, code: 'validation_failed' });
    expect(await problemOf(await upload(world, UNKNOWN_ID, bytes))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await problemOf(await upload(world, 'not-a-run', bytes))).toEqual({ status: 404, code: 'resource_not_found' });

    const finished = await internal(world, 'PATCH', `/internal/runs/${runId}`, { status: 'succeeded' });
    expect(finished.status).toBe(200);
    expect(await problemOf(await upload(world, runId, bytes))).toEqual({ status: 409, code: 'run_not_held' });
    expect(await storedFor(world, runId)).toEqual({ rows: 0, chunks: 0, files: [], parts: [] });
  });

  it('refuses a held run whose status takes no uploads with 409 invalid_run_state', async () => {
    const { runId } = await claimedRun(world);
    // A run the worker still holds but whose status is not running or paused (as a cancel being delivered leaves it).
    await world.knex('runs').where({ id: runId }).update({ status: 'cancelled' });
    expect(await problemOf(await upload(world, runId, randomBytes(10)))).toEqual({ status: 409, code: 'invalid_run_state' });
  });

  it('refuses a bad name, step id or content type with 422 and stores nothing', async () => {
    const { runId } = await claimedRun(world);
    const bytes = randomBytes(10);
    // A drive letter makes the zip's entry an absolute path on Windows: yazl refuses it, which broke the run's download-all.
    for (const name of ['../up.txt', '/abs', 'a//b', 'a\\b', '', 'C:/x.txt', 'c:notes.txt']) {
      expect(await problemOf(await upload(world, runId, bytes, { name }))).toEqual({ status: 422, code: 'validation_failed' });
    }
    expect(await problemOf(await upload(world, runId, bytes, { stepId: 'Bad-Step' }))).toEqual({ status: 422, code: 'validation_failed' });
    expect(await problemOf(await upload(world, runId, bytes, { contentType: 'not a type' }))).toEqual({
      status: 422,
      code: 'validation_failed',
    });
    expect(await problemOf(await internal(world, 'POST', `/internal/runs/${runId}/artifacts`, { name: 'n' }))).toEqual({
      status: 422,
      code: 'validation_failed',
    });
    expect(await storedFor(world, runId)).toEqual({ rows: 0, chunks: 0, files: [], parts: [] });
  });

  it("keeps an upload to its run id written in capitals where its download and its run's purge find it", async () => {
    const { runId } = await claimedRun(world);
    const bytes = randomBytes(1000);
    const artifact = await created(await upload(world, runId.toUpperCase(), bytes, { name: 'caps.bin' }));
    const response = await download(world, runId, artifact.id);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await internal(world, 'PATCH', `/internal/runs/${runId}`, { status: 'succeeded' })).status).toBe(200);
    const purged = await fetch(`${world.daemon.url}/runs/${runId}/permanent`, {
      method: 'DELETE',
      headers: { authorization: world.as.ada, 'x-org-id': 'acme' },
    });
    expect(purged.status).toBe(204);
    expect(await readdir(join(world.daemon.services.config.dataDir, 'artifacts', 'runs')).catch(() => [])).not.toContain(
      runId.toUpperCase(),
    );
  });

  it('answers an upload whose run is cancelled and purged while its bytes arrive as the fence does (404), keeping nothing', async () => {
    const { runId } = await claimedRun(world);
    let release = (): void => undefined;
    const rest = new Promise<void>((resolve) => (release = resolve));
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        pulls += 1;
        if (pulls === 1) return controller.enqueue(randomBytes(1_500_000));
        await rest;
        if (pulls === 2) return controller.enqueue(randomBytes(1_500_000));
        controller.close();
      },
    });
    const answer = fetch(`${world.daemon.url}/internal/runs/${runId}/artifacts/upload?name=late.bin`, {
      method: 'POST',
      headers: { 'x-internal-token': INTERNAL_TOKEN, 'x-worker-id': 'w1', 'x-run-attempt': '1' },
      body,
      duplex: 'half',
    } as RequestInit);
    await until(async () => {
      const now = await storedFor(world, runId);
      return store === 'database' ? now.chunks > 0 : now.parts.length > 0;
    });
    const user = { authorization: world.as.ada, 'x-org-id': 'acme' };
    expect((await fetch(`${world.daemon.url}/runs/${runId}/cancel`, { method: 'POST', headers: user })).status).toBe(200);
    expect((await fetch(`${world.daemon.url}/runs/${runId}/permanent`, { method: 'DELETE', headers: user })).status).toBe(204);
    release();
    expect(await problemOf(await answer)).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await storedFor(world, runId)).toEqual({ rows: 0, chunks: 0, files: [], parts: [] });
    expect(await readdir(join(world.daemon.services.config.dataDir, 'artifacts', 'runs')).catch(() => [])).not.toContain(runId);
  });

  it('answers 404 for an unknown run or artifact, and for another organization (run and zip alike)', async () => {
    const { runId } = await claimedRun(world);
    const artifact = await created(await upload(world, runId, randomBytes(100)));
    expect(await problemOf(await download(world, runId, UNKNOWN_ID))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await problemOf(await download(world, UNKNOWN_ID, artifact.id))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await problemOf(await download(world, runId, 'nope'))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await problemOf(await get(world, `/runs/${UNKNOWN_ID}/artifacts/download-all`, world.as.vic))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
    expect(await seenFromBeta(world, runId, artifact.id)).toEqual([
      [404, 'resource_not_found'],
      [404, 'resource_not_found'],
    ]);
  });

  it("takes a purged run's artifacts with it: rows, chunks and files", async () => {
    const { runId } = await claimedRun(world);
    await created(await upload(world, runId, randomBytes(2_500_000), { name: 'a' }));
    await created(await internal(world, 'POST', `/internal/runs/${runId}/artifacts`, { name: 'b', content: 'b' }));
    const before = await storedFor(world, runId);
    expect(before.rows).toBe(2);
    expect(store === 'database' ? before.chunks : before.files.length).toBe(store === 'database' ? 4 : 2);
    expect((await internal(world, 'PATCH', `/internal/runs/${runId}`, { status: 'succeeded' })).status).toBe(200);
    const purged = await fetch(`${world.daemon.url}/runs/${runId}/permanent`, {
      method: 'DELETE',
      headers: { authorization: world.as.ada, 'x-org-id': 'acme' },
    });
    expect(purged.status).toBe(204);
    expect(await storedFor(world, runId)).toEqual({ rows: 0, chunks: 0, files: [], parts: [] });
  });

  it.skipIf(store !== 'file')(
    "sweeps the files of runs gone without a purge (an organization's delete) and part files abandoned for a day",
    async () => {
      const { runId } = await claimedRun(world);
      await created(await upload(world, runId, randomBytes(1000)));
      await world.knex('runs').where({ id: runId }).delete();
      const tmp = join(world.daemon.services.config.dataDir, 'artifacts', 'tmp');
      await writeFile(join(tmp, 'stale.part'), 'x');
      const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
      await utimes(join(tmp, 'stale.part'), twoDaysAgo, twoDaysAgo);
      await writeFile(join(tmp, 'fresh.part'), 'x');
      const { runId: kept } = await claimedRun(world);
      await created(await upload(world, kept, randomBytes(1000)));

      const swept = await sweepArtifacts(world);
      expect(swept).toEqual({ runs_removed: 1, parts_removed: 1 });
      expect((await storedFor(world, runId)).files).toEqual([]);
      expect((await storedFor(world, kept)).files).toHaveLength(1);
      expect(await readdir(tmp)).toEqual(['fresh.part']);
      await rm(join(tmp, 'fresh.part'));
    },
  );

  it("end to end: the worker's client uploads to its claimed run, a viewer of the org downloads it byte-identical, another org gets 404", async () => {
    const { runId, attempt } = await claimedRun(world, 'w-e2e');
    const callbacks = new HttpRunCallbacks(new InternalHttp(world.daemon.url, INTERNAL_TOKEN, CALLBACK_RETRY), runId, 'w-e2e', attempt);
    const bytes = randomBytes(2_000_000);
    const streamed = await callbacks.uploadArtifact(Readable.from([bytes.subarray(0, 700_000), bytes.subarray(700_000)]), {
      name: 'backup.tar',
      stepId: 'backup',
      contentType: 'application/x-tar',
    });
    const whole = await callbacks.uploadArtifact(Buffer.from('ok'), { name: 'status.txt', contentType: 'text/plain' });
    expect(streamed).toMatchObject({ size_bytes: bytes.length, sha256: sha256(bytes), step_id: 'backup', attempt });
    expect(whole.size_bytes).toBe(2);

    const response = await download(world, runId, streamed.id);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-tar');
    expect(Buffer.from(await response.arrayBuffer()).equals(bytes)).toBe(true);
    expect(await problemOf(await download(world, runId, streamed.id, world.as.bea, 'beta'))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
  });
});

/** Two instances of one deployment on one PostgreSQL database share the database store, set for that. */
describe.skipIf(BACKEND !== 'postgres')('the database store across daemons', () => {
  const DATABASE_STORE = { SERVICE_ARTIFACT_STORE: 'database' };
  let world: ArtifactsWorld;
  let b: TestDaemon;

  beforeAll(async () => {
    world = await startArtifactsWorld(DATABASE_STORE);
    b = await secondDaemon(world, DATABASE_STORE);
  });
  afterAll(async () => {
    await b?.close();
    await world?.close();
  });

  it('an artifact uploaded to A is downloaded from B', async () => {
    const { runId } = await claimedRun(world);
    const bytes = randomBytes(2_200_000);
    const artifact = await created(await upload(world, runId, bytes, { name: 'shared.bin' }));
    expect((await world.knex('run_artifacts').where({ id: artifact.id }).first('storage')).storage).toBe('database');
    const fromB = await get(world, `/runs/${runId}/artifacts/${artifact.id}/download`, world.as.vic, 'acme', b.url);
    expect(fromB.status).toBe(200);
    expect(Buffer.from(await fromB.arrayBuffer()).equals(bytes)).toBe(true);
    const zip = await get(world, `/runs/${runId}/artifacts/download-all`, world.as.vic, 'acme', b.url);
    expect((await unzip(Buffer.from(await zip.arrayBuffer()))).get('shared.bin')!.equals(bytes)).toBe(true);
  });
});
