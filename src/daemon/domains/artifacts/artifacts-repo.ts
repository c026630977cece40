import type { Knex } from 'knex';
import type { HeldFacts } from '../run-callbacks/fence.js';
import type { StorageKind } from './artifact-store.js';

export type ArtifactsTx = Knex.Transaction;

/** A row of `run_artifacts`. */
export interface ArtifactRow {
  readonly id: string;
  readonly run_id: string;
  readonly name: string;
  readonly step_id: string | null;
  readonly content_type: string;
  readonly size_bytes: string | number;
  readonly sha256: string;
  readonly storage: StorageKind;
  /** The file repository holding the bytes when `storage` is `repository`. */
  readonly repository_id: string | null;
  readonly attempt: number;
  readonly worker_id: string;
  readonly created_at: Date | string;
}

export type NewArtifact = Omit<ArtifactRow, 'created_at'>;

/** What an upload needs of its run: who holds it, for the fence, and its organization, whose repository may keep the bytes. */
export type UploadRun = HeldFacts & { readonly id: string; readonly org_id: string };

const HELD_COLUMNS = ['id', 'org_id', 'status', 'worker_id', 'attempt', 'lease_expires_at'] as const;
const ARTIFACT_COLUMNS = [
  'id',
  'run_id',
  'name',
  'step_id',
  'content_type',
  'size_bytes',
  'sha256',
  'storage',
  'repository_id',
  'attempt',
  'worker_id',
  'created_at',
] as const;

/** `run_artifacts` and what uploads and downloads read of their run. */
export class ArtifactsRepo {
  constructor(private readonly knex: Knex) {}

  transaction<T>(work: (trx: ArtifactsTx) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  /** The run's holder, read without a lock: an upload checks it before reading a byte. */
  run(runId: string): Promise<UploadRun | undefined> {
    return this.knex('runs').where({ id: runId }).first(HELD_COLUMNS);
  }

  /** The run, locked until the upload's row is committed. */
  lockRun(trx: ArtifactsTx, runId: string): Promise<UploadRun | undefined> {
    return trx('runs').where({ id: runId }).forUpdate().first(HELD_COLUMNS);
  }

  /** Bytes the run's artifacts hold together. */
  async usedBytes(runId: string, trx?: ArtifactsTx): Promise<number> {
    const row = await (trx ?? this.knex)('run_artifacts').where({ run_id: runId }).sum({ used: 'size_bytes' }).first();
    return Number((row as { used: string | number | null } | undefined)?.used ?? 0);
  }

  byName(trx: ArtifactsTx, runId: string, name: string): Promise<ArtifactRow | undefined> {
    return trx('run_artifacts').where({ run_id: runId, name }).first(ARTIFACT_COLUMNS);
  }

  async insert(trx: ArtifactsTx, artifact: NewArtifact): Promise<ArtifactRow> {
    const [row] = await trx('run_artifacts').insert(artifact).returning(ARTIFACT_COLUMNS);
    return row as ArtifactRow;
  }

  /** The organization's live (not soft-deleted) run, for a download: its name names the zip. */
  visibleRun(orgId: string, runId: string): Promise<{ id: string; name: string } | undefined> {
    return this.knex('runs').where({ id: runId, org_id: orgId }).whereNull('deleted_at').first('id', 'name');
  }

  /** One artifact of the organization's live run. */
  visibleArtifact(orgId: string, runId: string, artifactId: string): Promise<ArtifactRow | undefined> {
    return this.knex('run_artifacts as a')
      .join('runs as r', 'r.id', 'a.run_id')
      .where({ 'a.id': artifactId, 'a.run_id': runId, 'r.org_id': orgId })
      .whereNull('r.deleted_at')
      .first(ARTIFACT_COLUMNS.map((column) => `a.${column}`));
  }

  /** Those of `runIds` that still exist. */
  async existingRuns(runIds: readonly string[]): Promise<Set<string>> {
    if (runIds.length === 0) return new Set();
    const rows = await this.knex('runs').whereIn('id', runIds).select<{ id: string }[]>('id');
    return new Set(rows.map((row) => row.id));
  }

  /** The run's artifacts kept in file repositories, read in its purge's transaction (the rows go with it). */
  inRepositories(trx: Knex.Transaction, runId: string): Promise<Pick<ArtifactRow, 'id' | 'run_id' | 'repository_id'>[]> {
    return trx('run_artifacts').where({ run_id: runId, storage: 'repository' }).select('id', 'run_id', 'repository_id');
  }

  /** Every artifact of a run, oldest first (the zip's order). */
  list(runId: string): Promise<ArtifactRow[]> {
    return this.knex('run_artifacts')
      .where({ run_id: runId })
      .orderBy([{ column: 'created_at' }, { column: 'name' }])
      .select(ARTIFACT_COLUMNS);
  }
}
