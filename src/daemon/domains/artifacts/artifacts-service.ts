import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { z } from 'zod';
import type { Artifact, createArtifactBody } from '../../../shared/api/artifacts.js';
import { Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { fence, type Holder, isHeldBy, runNotFound } from '../run-callbacks/fence.js';
import { appendDaemonEvent } from '../runs/run-event-log.js';
import type { RunStatus } from '../runs/run-view.js';
import type { ArtifactRef, ArtifactStore, ArtifactStores } from './artifact-store.js';
import type { ArtifactRow, ArtifactsRepo, ArtifactsTx, UploadRun } from './artifacts-repo.js';
import { ArtifactBytesMissing } from './file-artifact-store.js';
import { isStoreFailure } from '../../storage/blob-store.js';
import { type ByteSource, StreamMeter } from '../../storage/stream-meter.js';

export type ArtifactView = Artifact;

/** Where a stored artifact's bytes are: its row's store and repository. */
export type StoredAt = Pick<ArtifactRow, 'storage' | 'repository_id'>;

/**
 * Uploads are taken while the worker holds the run in a state where it still works on it: running, or
 * paused (a pause waits for the step in hand, which may still keep its files). A finished run, or one
 * waiting for an approval (its worker holds nothing), refuses them.
 */
export const UPLOAD_STATES: readonly RunStatus[] = ['running', 'paused'];

/** An upload's part file untouched this long belongs to an upload that will never finish. */
const ABANDONED_AFTER_MS = 24 * 60 * 60 * 1000;

export interface ArtifactLimits {
  /** SERVICE_ARTIFACT_MAX_BYTES */
  readonly maxBytes: number;
  /** SERVICE_ARTIFACT_RUN_MAX_BYTES */
  readonly runMaxBytes: number;
}

/** What an upload says of itself; its bytes come separately. */
export interface ArtifactMeta {
  readonly name: string;
  readonly stepId?: string | undefined;
  readonly contentType: string;
  /** `Content-Length`, when the request declared one: a body already known too large is refused unread. */
  readonly declaredBytes?: number | undefined;
}

export type SmallArtifact = z.infer<typeof createArtifactBody>;

export interface Uploaded {
  /** False when the run already had this name with the same bytes (a retried upload): that artifact is answered. */
  readonly created: boolean;
  readonly artifact: ArtifactView;
}

export function artifactView(row: ArtifactRow): ArtifactView {
  return {
    id: row.id,
    run_id: row.run_id,
    name: row.name,
    step_id: row.step_id,
    content_type: row.content_type,
    size_bytes: Number(row.size_bytes),
    sha256: row.sha256,
    attempt: row.attempt,
    created_at: new Date(row.created_at).toISOString(),
  };
}

function artifactTooLarge(limit: number) {
  return problem('artifact_too_large', `An artifact may hold at most ${limit} bytes.`, { limit });
}

function runArtifactsTooLarge(limit: number, used: number) {
  return problem('run_artifacts_too_large', `A run's artifacts may hold at most ${limit} bytes together; it holds ${used}.`, {
    limit,
    used,
  });
}

function storeUnavailable() {
  return problem('artifact_store_unavailable', 'The artifact store cannot take the upload now; nothing of it is kept.');
}

function artifactNotFound() {
  return problems.resourceNotFound('Artifact');
}

/**
 * Run artifacts: the holder's uploads, streamed into the store while they are counted and hashed, and
 * committed as a row (with an `artifact.created` run event) only once every byte is stored; an upload that
 * fails or is refused at any point leaves no row and no bytes. Users read them in the run's organization.
 */
export class ArtifactsService {
  constructor(
    private readonly repo: ArtifactsRepo,
    private readonly stores: ArtifactStores,
    private readonly limits: ArtifactLimits,
  ) {}

  /** Streams `source` in as the artifact `meta` names, for the holder of the run. */
  async upload(runId: string, holder: Holder, meta: ArtifactMeta, source: ByteSource): Promise<Uploaded> {
    if (!isUuid(runId)) throw runNotFound();
    const run = this.#fence(await this.repo.run(runId), holder);
    // The file and repository stores name the bytes by the run's id as its row has it (lower case, as the
    // database writes a uuid): the path's capitals would put them where no download or purge looks.
    return this.#store(run.id, run.org_id, holder, meta, source, await this.repo.usedBytes(run.id));
  }

  /** A small artifact sent whole in a JSON body: a string is kept as its text, any other value as JSON. */
  async create(runId: string, holder: Holder, input: SmallArtifact): Promise<Uploaded> {
    const isText = typeof input.content === 'string';
    const bytes = Buffer.from(isText ? (input.content as string) : JSON.stringify(input.content, null, 2), 'utf8');
    const contentType = input.content_type ?? (isText ? 'text/plain; charset=utf-8' : 'application/json');
    return this.upload(runId, holder, { name: input.name, stepId: input.step_id, contentType, declaredBytes: bytes.length }, [bytes]);
  }

  async #store(runId: string, orgId: string, holder: Holder, meta: ArtifactMeta, source: ByteSource, used: number): Promise<Uploaded> {
    const { maxBytes, runMaxBytes } = this.limits;
    const room = runMaxBytes - used;
    const declared = meta.declaredBytes;
    if (declared !== undefined && declared > maxBytes) throw artifactTooLarge(maxBytes);
    if (declared !== undefined && declared > room) throw runArtifactsTooLarge(runMaxBytes, used);
    const meter = new StreamMeter(Math.min(maxBytes, room), () =>
      room < maxBytes ? runArtifactsTooLarge(runMaxBytes, used) : artifactTooLarge(maxBytes),
    );
    const placement = await this.stores.placement(orgId);
    const store = this.stores.of(placement.storage);
    const ref: ArtifactRef = { runId, artifactId: randomUUID(), repositoryId: placement.repositoryId };
    try {
      await store.write(ref, meter.pass(source));
    } catch (error) {
      // A repository's store failing (S3 down) is not the daemon's fault: 503, as a lost database is.
      if (store.kind === 'repository' && isStoreFailure(error)) throw storeUnavailable();
      // The run purged while its bytes arrived (the database store's chunks then break their foreign key):
      // the fence's answer (404), not a failure of the daemon's.
      if (!(error instanceof Problem)) this.#fence(await this.repo.run(runId), holder);
      throw error;
    }
    const { size, sha256 } = meter.measured();
    try {
      const answer = await this.repo.transaction((trx) => this.#commit(trx, store, ref, holder, meta, size, sha256));
      if (!answer.created) await store.remove(ref);
      return answer;
    } catch (error) {
      await store.remove(ref);
      // The run purged while the bytes arrived: the file store made the run's directory again for them.
      if (!(await this.repo.run(ref.runId))) await store.removeRun(ref.runId, [ref]);
      throw error;
    }
  }

  /** Under the run's lock: still held, still room (another upload may have landed meanwhile), and the name free. */
  async #commit(
    trx: ArtifactsTx,
    store: ArtifactStore,
    ref: ArtifactRef,
    holder: Holder,
    meta: ArtifactMeta,
    size: number,
    sha256: string,
  ): Promise<Uploaded> {
    const run = this.#fence(await this.repo.lockRun(trx, ref.runId), holder);
    const existing = await this.repo.byName(trx, ref.runId, meta.name);
    if (existing) {
      if (existing.sha256 === sha256 && Number(existing.size_bytes) === size) return { created: false, artifact: artifactView(existing) };
      throw problem('artifact_name_taken', `The run already has an artifact named ${meta.name}.`, { name: meta.name });
    }
    const used = await this.repo.usedBytes(ref.runId, trx);
    if (used + size > this.limits.runMaxBytes) throw runArtifactsTooLarge(this.limits.runMaxBytes, used);
    const row = await this.repo.insert(trx, {
      id: ref.artifactId,
      run_id: ref.runId,
      name: meta.name,
      step_id: meta.stepId ?? null,
      content_type: meta.contentType,
      size_bytes: size,
      sha256,
      storage: store.kind,
      repository_id: ref.repositoryId ?? null,
      attempt: run.attempt,
      worker_id: holder.workerId,
    });
    const view = artifactView(row);
    await appendDaemonEvent(trx, ref.runId, {
      type: 'artifact.created',
      ...(view.step_id ? { stepId: view.step_id } : {}),
      data: {
        artifact_id: view.id,
        name: view.name,
        step_id: view.step_id,
        content_type: view.content_type,
        size_bytes: view.size_bytes,
        sha256: view.sha256,
      },
    });
    return { created: true, artifact: view };
  }

  #fence(run: UploadRun | undefined, holder: Holder): UploadRun {
    return fence(run, (r) => isHeldBy(r, holder), holder, UPLOAD_STATES, 'given artifacts');
  }

  /** One artifact of the organization's run; another organization's run or artifact is 404. */
  async find(orgId: string, runId: string, artifactId: string): Promise<ArtifactView & StoredAt> {
    if (!isUuid(runId) || !isUuid(artifactId)) throw artifactNotFound();
    const row = await this.repo.visibleArtifact(orgId, runId, artifactId);
    if (!row) throw artifactNotFound();
    return { ...artifactView(row), storage: row.storage, repository_id: row.repository_id };
  }

  /** The artifact's bytes, opened before the answer starts (503 `artifact_unavailable` when they cannot be). */
  async open(artifact: { id: string; run_id: string } & StoredAt): Promise<Readable> {
    try {
      return await this.stores
        .of(artifact.storage)
        .open({ runId: artifact.run_id, artifactId: artifact.id, repositoryId: artifact.repository_id });
    } catch (error) {
      if (error instanceof ArtifactBytesMissing || isStoreFailure(error)) {
        throw problem('artifact_unavailable', "The artifact's bytes cannot be read on this instance.", { artifact_id: artifact.id });
      }
      throw error;
    }
  }

  /** The organization's run and every artifact it holds, for the zip. */
  async forZip(orgId: string, runId: string): Promise<{ run: { id: string; name: string }; artifacts: ArtifactRow[] }> {
    if (!isUuid(runId)) throw runNotFound();
    const run = await this.repo.visibleRun(orgId, runId);
    if (!run) throw runNotFound();
    return { run, artifacts: await this.repo.list(runId) };
  }

  /**
   * Housekeeping for the maintenance tick: bytes of runs that no longer exist (an organization's delete
   * cascades to its runs without passing through the run purge), and part files of uploads abandoned for
   * a day (the daemon died during them).
   */
  async sweep(now: Date): Promise<{ runs_removed: number; parts_removed: number }> {
    let runsRemoved = 0;
    let partsRemoved = 0;
    const before = new Date(now.getTime() - ABANDONED_AFTER_MS);
    for (const store of this.stores.all) {
      const stored = (await store.storedRuns()).filter(isUuid);
      const existing = await this.repo.existingRuns(stored);
      for (const runId of stored.filter((id) => !existing.has(id))) {
        await store.removeRun(runId, []);
        runsRemoved += 1;
      }
      partsRemoved += await store.removeAbandoned(before);
    }
    return { runs_removed: runsRemoved, parts_removed: partsRemoved };
  }

  /**
   * In a run's purge transaction: reads which of its artifacts a file repository keeps (their rows go
   * with the run), and answers the removal of their bytes and of the run's files, to run after the commit.
   */
  async runPurging(trx: ArtifactsTx, runId: string): Promise<() => Promise<void>> {
    const inRepositories = (await this.repo.inRepositories(trx, runId)).map((row): ArtifactRef => ({
      runId: row.run_id,
      artifactId: row.id,
      repositoryId: row.repository_id,
    }));
    return async () => {
      await Promise.all(this.stores.all.map((store) => store.removeRun(runId, store.kind === 'repository' ? inRepositories : [])));
    };
  }
}
