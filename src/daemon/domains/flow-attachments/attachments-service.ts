import type { Readable } from 'node:stream';
import type { FlowAttachment } from '../../../shared/api/flow-attachments.js';
import { isUuid } from '../../../shared/ids.js';
import type { ByteSource } from '../../storage/stream-meter.js';
import type { FlowCaller } from '../flows/module.js';
import { attachmentTooLarge, type AttachmentBytes } from './attachment-bytes.js';
import { attachmentExists, attachmentFolder, attachmentPath, treeClashes } from './attachment-paths.js';
import { attachmentAudit, attachmentNotFound, attachmentView } from './attachment-view.js';
import type { AttachmentRow, AttachmentsRepo } from './attachments-repo.js';
import type { FlowGate } from './flow-gate.js';

export interface UploadMeta {
  readonly path: string;
  readonly overwrite: boolean;
  readonly declaredType?: string | undefined;
  readonly declaredBytes?: number | undefined;
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505';
}

/** A flow draft's attachments one at a time: list, read, download, upload, move, delete (docs/flow-attachments.md). */
export class AttachmentsService {
  constructor(
    private readonly repo: AttachmentsRepo,
    private readonly gate: FlowGate,
    private readonly bytes: AttachmentBytes,
    private readonly maxBytes: number,
  ) {}

  async list(
    caller: FlowCaller,
    flowId: string,
    filter: { folder?: string | undefined; q?: string | undefined; limit: number; offset: number },
  ) {
    const flow = await this.gate.readable(caller, flowId);
    const folder = attachmentFolder(filter.folder);
    const { rows, total } = await this.repo.list(flow.id, { ...filter, folder });
    return { items: rows.map((row) => attachmentView(row, caller.org.id)), total, limit: filter.limit, offset: filter.offset };
  }

  async get(caller: FlowCaller, flowId: string, id: string): Promise<FlowAttachment> {
    return attachmentView(await this.#readable(caller, flowId, id), caller.org.id);
  }

  async #readable(caller: FlowCaller, flowId: string, id: string): Promise<AttachmentRow> {
    const flow = await this.gate.readable(caller, flowId);
    const row = isUuid(id) ? await this.repo.find(flow.id, id) : undefined;
    if (!row) throw attachmentNotFound();
    return row;
  }

  /** The row, and its bytes opened only when `open` is called (a 304 opens nothing). */
  async download(caller: FlowCaller, flowId: string, id: string): Promise<{ row: AttachmentRow; open: () => Promise<Readable> }> {
    const row = await this.#readable(caller, flowId, id);
    return { row, open: () => this.bytes.open(row) };
  }

  /**
   * Streams the bytes into the organization's default repository, then, with the flow row locked, points
   * the path at them: a new attachment, or (`overwrite`) the one at the path, whose old blob goes unless
   * a committed version pins it. Whatever is refused leaves no row and no bytes.
   */
  async upload(
    caller: FlowCaller,
    flowId: string,
    meta: UploadMeta,
    source: ByteSource,
  ): Promise<{ created: boolean; attachment: FlowAttachment }> {
    const path = attachmentPath(meta.path);
    const flow = await this.gate.writable(caller, flowId);
    if (meta.declaredBytes !== undefined && meta.declaredBytes > this.maxBytes) throw attachmentTooLarge(this.maxBytes, 'file');
    const target = await this.bytes.target(caller.org, caller.audit);
    const stored = await this.bytes.write(
      target,
      source,
      this.maxBytes,
      () => attachmentTooLarge(this.maxBytes, 'file'),
      meta.declaredType,
    );
    const orgIds = await this.gate.orgIds(caller);
    let outcome: { id: string; created: boolean; blobCreated: boolean; replacedBlob?: string };
    try {
      outcome = await this.repo.transaction(async (trx) => {
        await this.gate.lock(trx, orgIds, caller, flow.id);
        const existing = await this.repo.allOf(flow.id, trx);
        const same = existing.find((row) => row.path === path);
        if (same && !meta.overwrite) throw attachmentExists([path]);
        const clashes = treeClashes([...existing.map((row) => row.path).filter((p) => p !== path), path]);
        if (clashes.length > 0) throw attachmentExists(clashes);
        const blob = await this.repo.claimBlob(trx, { org_id: flow.org_id, ...blobOf(stored) });
        const by = caller.sub;
        const fields = { blob_id: blob.id, content_type: stored.content_type, updated_by: by };
        const after = { flow_id: flow.id, path, ...stored };
        if (same) {
          await this.repo.update(trx, same.id, fields);
          await this.gate.record(trx, caller.audit, {
            eventType: 'entity.updated',
            orgId: flow.org_id,
            resourceId: same.id,
            details: { replaced: true, before: attachmentAudit(same), after: attachmentAudit(after) },
          });
          return { id: same.id, created: false, blobCreated: blob.created, replacedBlob: same.blob_id };
        }
        const id = await this.repo.insert(trx, { flow_id: flow.id, org_id: flow.org_id, path, ...fields, created_by: by });
        await this.gate.record(trx, caller.audit, {
          eventType: 'entity.created',
          orgId: flow.org_id,
          resourceId: id,
          details: { attachment: attachmentAudit(after) },
        });
        return { id, created: true, blobCreated: blob.created };
      });
    } catch (error) {
      await this.bytes.discard([stored]);
      if (isUniqueViolation(error)) throw attachmentExists([path]);
      throw error;
    }
    if (!outcome.blobCreated) await this.bytes.discard([stored]);
    if (outcome.replacedBlob) await this.bytes.release([outcome.replacedBlob]);
    return { created: outcome.created, attachment: await this.get(caller, flow.id, outcome.id) };
  }

  /** A new path for one attachment (rename or move): its row changes, its bytes stay. */
  async move(caller: FlowCaller, flowId: string, id: string, rawPath: string): Promise<FlowAttachment> {
    const path = attachmentPath(rawPath);
    const flow = await this.gate.writable(caller, flowId);
    const orgIds = await this.gate.orgIds(caller);
    await this.repo.transaction(async (trx) => {
      await this.gate.lock(trx, orgIds, caller, flow.id);
      const existing = await this.repo.allOf(flow.id, trx);
      const row = existing.find((r) => r.id === id);
      if (!row) throw attachmentNotFound();
      if (row.path === path) return;
      if (existing.some((r) => r.path === path)) throw attachmentExists([path]);
      const clashes = treeClashes([...existing.filter((r) => r.id !== id).map((r) => r.path), path]);
      if (clashes.length > 0) throw attachmentExists(clashes);
      await this.repo.update(trx, id, { path, updated_by: caller.sub });
      await this.gate.record(trx, caller.audit, {
        eventType: 'entity.updated',
        orgId: flow.org_id,
        resourceId: id,
        details: { flow_id: flow.id, changes: { path: { old: row.path, new: path } } },
      });
    });
    return this.get(caller, flow.id, id);
  }

  /** Removes the attachment from the draft; its bytes go unless a committed version pins them. */
  async remove(caller: FlowCaller, flowId: string, id: string): Promise<void> {
    const flow = await this.gate.writable(caller, flowId);
    if (!isUuid(id)) throw attachmentNotFound();
    const orgIds = await this.gate.orgIds(caller);
    const blobId = await this.repo.transaction(async (trx) => {
      await this.gate.lock(trx, orgIds, caller, flow.id);
      const row = await this.repo.find(flow.id, id, trx);
      if (!row) throw attachmentNotFound();
      await this.repo.remove(trx, id);
      await this.gate.record(trx, caller.audit, {
        eventType: 'entity.deleted',
        orgId: flow.org_id,
        resourceId: id,
        details: { attachment: attachmentAudit(row) },
      });
      return row.blob_id;
    });
    await this.bytes.release([blobId]);
  }
}

export function blobOf(stored: { repository_id: string; storage_key: string; sha256: string; size_bytes: number }) {
  return { repository_id: stored.repository_id, storage_key: stored.storage_key, sha256: stored.sha256, size_bytes: stored.size_bytes };
}
