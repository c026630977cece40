import type { Knex } from 'knex';
import { TransactionalRepo } from '../../db/transactional-repo.js';
import type { HeldFacts } from '../run-callbacks/fence.js';

/** An attachment with what its blob says of its bytes. */
export interface AttachmentRow {
  readonly id: string;
  readonly flow_id: string;
  readonly org_id: string;
  readonly path: string;
  readonly blob_id: string;
  readonly content_type: string;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
  readonly sha256: string;
  readonly size_bytes: string | number;
  readonly repository_id: string;
  readonly storage_key: string;
}

/** A committed version's pin of one path, with its blob. */
export interface PinRow {
  readonly path: string;
  readonly content_type: string;
  readonly sha256: string;
  readonly size_bytes: string | number;
  readonly repository_id: string;
  readonly storage_key: string;
}

export interface NewBlob {
  readonly org_id: string;
  readonly repository_id: string;
  readonly storage_key: string;
  readonly sha256: string;
  readonly size_bytes: number;
}

/** A blob no row points to any more, gone from the table: its bytes are the caller's to remove. */
export interface LooseBlob {
  readonly repository_id: string;
  readonly storage_key: string;
}

export interface RunFacts extends HeldFacts {
  readonly id: string;
  readonly org_id: string;
  readonly flow_id: string | null;
  readonly flow_version: number;
}

export type AttachmentsTx = Knex.Transaction;
type Db = Knex | Knex.Transaction;

const ATTACHMENT = [
  'a.id',
  'a.flow_id',
  'a.org_id',
  'a.path',
  'a.blob_id',
  'a.content_type',
  'a.created_at',
  'a.updated_at',
  'a.created_by',
  'a.updated_by',
  'b.sha256',
  'b.size_bytes',
  'b.repository_id',
  'b.storage_key',
];

/** LIKE wildcards in a user's text match themselves. */
function likeEscaped(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** `flow_attachments`, their blobs and the versions' pins. Writes take the caller's transaction, so the audit entry commits with them. */
export class AttachmentsRepo extends TransactionalRepo {
  #attachments(db: Db) {
    return db({ a: 'flow_attachments' }).join({ b: 'flow_attachment_blobs' }, 'b.id', 'a.blob_id');
  }

  async list(
    flowId: string,
    filter: { folder?: string | undefined; q?: string | undefined; limit: number; offset: number },
  ): Promise<{ rows: AttachmentRow[]; total: number }> {
    const query = this.#attachments(this.knex).where('a.flow_id', flowId);
    if (filter.folder) query.andWhereRaw(`a.path LIKE ? ESCAPE '\\'`, [`${likeEscaped(filter.folder)}/%`]);
    if (filter.q) query.andWhereRaw(`a.path ILIKE ? ESCAPE '\\'`, [`%${likeEscaped(filter.q)}%`]);
    const [count, rows] = await Promise.all([
      query.clone().count<{ count: string | number }[]>({ count: '*' }),
      query.clone().select(ATTACHMENT).orderByRaw('a.path COLLATE "C"').limit(filter.limit).offset(filter.offset),
    ]);
    return { rows: rows as AttachmentRow[], total: Number(count[0]?.count ?? 0) };
  }

  async find(flowId: string, id: string, db: Db = this.knex): Promise<AttachmentRow | undefined> {
    return this.#attachments(db).where({ 'a.flow_id': flowId, 'a.id': id }).first(ATTACHMENT);
  }

  /** Every attachment of the flow's draft, by path. */
  async allOf(flowId: string, db: Db = this.knex): Promise<AttachmentRow[]> {
    return this.#attachments(db).where('a.flow_id', flowId).select(ATTACHMENT).orderByRaw('a.path COLLATE "C"');
  }

  /** A committed version's row id and definition. */
  async version(flowId: string, version: number): Promise<{ id: string; definition_json: unknown } | undefined> {
    return this.knex('flow_versions').where({ flow_id: flowId, version }).first('id', 'definition_json');
  }

  /** What a committed version pins, by path. */
  async pinsOf(versionId: string): Promise<PinRow[]> {
    return this.knex({ p: 'flow_version_attachments' })
      .join({ b: 'flow_attachment_blobs' }, 'b.id', 'p.blob_id')
      .where('p.flow_version_id', versionId)
      .select('p.path', 'p.content_type', 'b.sha256', 'b.size_bytes', 'b.repository_id', 'b.storage_key')
      .orderByRaw('p.path COLLATE "C"');
  }

  /** The draft's attachments become the version's pins (no byte is copied: both point to the blobs). */
  async pin(trx: AttachmentsTx, flowId: string, versionId: string): Promise<void> {
    await trx.raw(
      `INSERT INTO flow_version_attachments (flow_version_id, path, blob_id, content_type)
       SELECT ?, path, blob_id, content_type FROM flow_attachments WHERE flow_id = ?`,
      [versionId, flowId],
    );
  }

  /** A duplicate within the source's organization: the source draft's attachments as the copy's rows, over the same blobs. */
  async copyDraft(trx: AttachmentsTx, fromFlowId: string, to: { id: string; org_id: string }, by: string | null): Promise<void> {
    await trx.raw(
      `INSERT INTO flow_attachments (flow_id, org_id, path, blob_id, content_type, created_by, updated_by)
       SELECT ?, ?, path, blob_id, content_type, ?, ? FROM flow_attachments WHERE flow_id = ?`,
      [to.id, to.org_id, by, by, fromFlowId],
    );
  }

  /**
   * The blob of these bytes in this repository: the one there is (locked, so no sweep removes it before
   * the caller's row points to it), or `blob` inserted. `created` says which.
   */
  async claimBlob(trx: AttachmentsTx, blob: NewBlob): Promise<{ id: string; storage_key: string; created: boolean }> {
    for (;;) {
      const [inserted] = await trx('flow_attachment_blobs')
        .insert(blob)
        .onConflict(['repository_id', 'sha256'])
        .ignore()
        .returning(['id', 'storage_key']);
      if (inserted) return { ...(inserted as { id: string; storage_key: string }), created: true };
      const existing = await trx('flow_attachment_blobs')
        .where({ repository_id: blob.repository_id, sha256: blob.sha256 })
        .forUpdate()
        .first('id', 'storage_key');
      // Swept between the two statements: insert again.
      if (existing) return { ...(existing as { id: string; storage_key: string }), created: false };
    }
  }

  async insert(trx: AttachmentsTx, row: Record<string, unknown>): Promise<string> {
    const [inserted] = await trx('flow_attachments').insert(row).returning('id');
    return (inserted as { id: string }).id;
  }

  async update(trx: AttachmentsTx, id: string, changes: Record<string, unknown>): Promise<void> {
    await trx('flow_attachments')
      .where({ id })
      .update({ ...changes, updated_at: trx.fn.now() });
  }

  async remove(trx: AttachmentsTx, id: string): Promise<void> {
    await trx('flow_attachments').where({ id }).delete();
  }

  /**
   * Removes blobs that no attachment and no pin points to (these ids, or any), at most `limit`, answering
   * where their bytes are. A blob a concurrent write just claimed is locked by it, and skipped.
   */
  async sweep(ids: readonly string[] | 'any', limit = 500): Promise<LooseBlob[]> {
    if (ids !== 'any' && ids.length === 0) return [];
    return this.knex.transaction(async (trx): Promise<LooseBlob[]> => {
      const loose = trx('flow_attachment_blobs as b')
        .whereNotExists(trx('flow_attachments').whereRaw('blob_id = b.id').select(trx.raw('1')))
        .whereNotExists(trx('flow_version_attachments').whereRaw('blob_id = b.id').select(trx.raw('1')))
        .select('b.id')
        .limit(limit)
        .forUpdate()
        .skipLocked();
      if (ids !== 'any') loose.whereIn('b.id', ids);
      const found = (await loose) as { id: string }[];
      if (found.length === 0) return [];
      return trx('flow_attachment_blobs')
        .whereIn(
          'id',
          found.map((f) => f.id),
        )
        .delete()
        .returning(['repository_id', 'storage_key']) as Promise<LooseBlob[]>;
    });
  }

  async run(id: string): Promise<RunFacts | undefined> {
    return this.knex('runs')
      .where({ id })
      .first('id', 'org_id', 'flow_id', 'flow_version', 'status', 'worker_id', 'attempt', 'lease_expires_at');
  }

  /** A live flow by id alone (the internal token stands for the organization), with its draft. */
  async liveFlow(flowId: string): Promise<{ id: string; org_id: string; draft_json: unknown } | undefined> {
    return this.knex('flows').where({ id: flowId }).whereNull('deleted_at').first('id', 'org_id', 'draft_json');
  }
}
