import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/daemon/logging/logger.js';
import {
  claimedRun,
  INTERNAL_TOKEN,
  startArtifactsWorld,
  storedFor,
  sweepArtifacts,
  until,
  abandonUpload,
  upload,
  type ArtifactsWorld,
} from './helpers/artifacts-fixtures.js';

type LogLine = { level: string; msg: string; status?: number; route?: string; err?: unknown };

const NOTHING = JSON.stringify({ rows: 0, chunks: 0, files: [], parts: [] });

/** Whether the store has begun keeping the run's upload. */
function begunIn(world: ArtifactsWorld, runId: string, store: 'file' | 'database') {
  return async () => {
    const now = await storedFor(world, runId);
    return store === 'database' ? now.chunks > 0 : now.parts.length > 0;
  };
}

describe.each(['file', 'database'] as const)('an upload whose client goes away, in the %s store', (store) => {
  let world: ArtifactsWorld;
  const lines: LogLine[] = [];

  beforeAll(async () => {
    const log = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
    world = await startArtifactsWorld({ SERVICE_ARTIFACT_STORE: store }, log);
  });
  afterAll(async () => {
    await world?.close();
  });

  it('is logged as a client gone (status 499 in the access log), not as a failed request, and leaves nothing', async () => {
    const { runId } = await claimedRun(world);
    lines.length = 0;
    await abandonUpload(world, runId, begunIn(world, runId, store));
    const accessLine = () => lines.find((line) => line.msg === 'request' && line.route === '/internal/runs/{run_id}/artifacts/upload');
    await until(() => accessLine() !== undefined);
    expect(accessLine()).toMatchObject({ status: 499 });
    expect(lines.filter((line) => line.level === 'error')).toEqual([]);
    expect(lines.filter((line) => line.msg === 'client went away before the answer')).toHaveLength(1);
    await until(async () => JSON.stringify(await storedFor(world, runId)) === NOTHING);
    expect(await world.knex('run_events').where({ run_id: runId, type: 'artifact.created' })).toEqual([]);
  });
});

describe('abandoned database-store uploads', () => {
  let world: ArtifactsWorld;

  beforeAll(async () => {
    // The test sweeps itself: the maintenance timer would sweep first.
    world = await startArtifactsWorld({ SERVICE_ARTIFACT_STORE: 'database', SERVICE_MAINTENANCE_TIMER_ENABLED: 'false' });
  });
  afterAll(async () => {
    await world?.close();
  });

  it("are swept once their newest chunk is a day old; uploads in progress and stored artifacts' chunks stay", async () => {
    const { runId } = await claimedRun(world);
    const stored = await upload(world, runId, randomBytes(2_500_000), { name: 'kept.bin' });
    expect(stored.status).toBe(201);
    const twoDaysAgo = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    const hourAgo = new Date(Date.now() - 3600 * 1000);
    // A stored artifact's chunks, however old, are never abandoned.
    await world.knex('run_artifact_chunks').where({ run_id: runId }).update({ written_at: twoDaysAgo });
    const chunk = (artifactId: string, seq: number, writtenAt: Date) => ({
      artifact_id: artifactId,
      seq,
      run_id: runId,
      data: randomBytes(100),
      written_at: writtenAt,
    });
    // The daemon died two days ago half way through this one.
    const dead = randomUUID();
    // This one's first chunk is two days old, but it wrote one an hour ago: still arriving as far as anyone knows.
    const slow = randomUUID();
    await world
      .knex('run_artifact_chunks')
      .insert([chunk(dead, 0, twoDaysAgo), chunk(dead, 1, twoDaysAgo), chunk(slow, 0, twoDaysAgo), chunk(slow, 1, hourAgo)]);

    const swept = await sweepArtifacts(world);
    expect(swept).toEqual({ runs_removed: 0, parts_removed: 1 });
    const left = await world.knex('run_artifact_chunks').where({ run_id: runId }).select('artifact_id');
    const byArtifact = new Set(left.map((row: { artifact_id: string }) => row.artifact_id));
    expect(byArtifact.has(dead)).toBe(false);
    expect(byArtifact.has(slow)).toBe(true);
    expect((await storedFor(world, runId)).chunks).toBe(3 + 2);
    expect((await sweepArtifacts(world)).parts_removed).toBe(0);
  });
});
