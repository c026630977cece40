import { Problem } from '../../../shared/api/problem.js';
import type { FlowAttachment } from '../../../shared/api/flow-attachments.js';
import { isStoreFailure } from '../../storage/blob-store.js';
import type { ByteSource } from '../../storage/stream-meter.js';
import type { FlowCaller } from '../flows/module.js';
import { attachmentTooLarge, type AttachmentBytes, type StoredBytes } from './attachment-bytes.js';
import { attachmentExists, attachmentFolder, attachmentPath, treeClashes } from './attachment-paths.js';
import { attachmentView } from './attachment-view.js';
import type { AttachmentsRepo } from './attachments-repo.js';
import { blobOf } from './attachments-service.js';
import type { FlowGate } from './flow-gate.js';
import { planRenames, type Rename } from './rename-plan.js';
import { archiveInvalid, withZipEntries } from './zip-entries.js';

export interface BulkLimits {
  /** SERVICE_ATTACHMENT_MAX_BYTES: one file. */
  readonly fileBytes: number;
  /** SERVICE_ATTACHMENT_BULK_MAX_FILES */
  readonly files: number;
  /** SERVICE_ATTACHMENT_BULK_MAX_BYTES: the archive, and its files uncompressed. */
  readonly bytes: number;
}

/**
 * A folder tree in one request (a zip), and renames of many paths at once: each all or nothing. A bulk
 * upload stores every file's bytes first, then writes every row in one transaction with the flow row
 * locked; any refusal (a limit, a bad entry, a taken path) removes what was stored and writes nothing.
 */
export class BulkService {
  constructor(
    private readonly repo: AttachmentsRepo,
    private readonly gate: FlowGate,
    private readonly bytes: AttachmentBytes,
    private readonly limits: BulkLimits,
  ) {}

  async upload(
    caller: FlowCaller,
    flowId: string,
    options: { folder?: string | undefined; overwrite: boolean; declaredBytes?: number | undefined },
    source: ByteSource,
  ): Promise<{ items: FlowAttachment[]; created: number; replaced: number }> {
    const folder = attachmentFolder(options.folder);
    const flow = await this.gate.writable(caller, flowId);
    const { limits } = this;
    if (options.declaredBytes !== undefined && options.declaredBytes > limits.bytes) throw attachmentTooLarge(limits.bytes, 'bytes');
    const target = await this.bytes.target(caller.org, caller.audit);
    const stored = new Map<string, StoredBytes>();
    try {
      await withZipEntries(
        source,
        limits.bytes,
        () => attachmentTooLarge(limits.bytes, 'bytes'),
        async (entries) => {
          let total = 0;
          for await (const entry of entries) {
            if (stored.size >= limits.files) throw attachmentTooLarge(limits.files, 'files');
            const path = entryPath(entry.name, folder);
            if (stored.has(path)) throw archiveInvalid('duplicate_entry', { entry: entry.name });
            total += entry.size;
            if (entry.size > limits.fileBytes) throw attachmentTooLarge(limits.fileBytes, 'file');
            if (total > limits.bytes) throw attachmentTooLarge(limits.bytes, 'bytes');
            const refuse = () => attachmentTooLarge(limits.fileBytes, 'file');
            try {
              stored.set(path, await this.bytes.write(target, await entry.open(), limits.fileBytes, refuse));
            } catch (error) {
              if (error instanceof Problem || isStoreFailure(error)) throw error;
              throw archiveInvalid('unreadable_entry', { entry: entry.name, message: (error as Error).message });
            }
          }
        },
      );
      if (stored.size === 0) throw archiveInvalid('no_files');
      return await this.commit(caller, flow, stored, options.overwrite);
    } catch (error) {
      await this.bytes.discard([...stored.values()]);
      throw error;
    }
  }

  /**
   * Bytes already stored (`stored`: path -> bytes) become the flow's attachments in one transaction, with
   * the flow locked: taken paths refused unless `overwrite`, blobs claimed (bytes the repository held
   * already are discarded), one audit entry. The caller discards `stored` if this throws.
   */
  async commit(caller: FlowCaller, flow: { id: string; org_id: string }, stored: Map<string, StoredBytes>, overwrite: boolean) {
    const orgIds = await this.gate.orgIds(caller);
    const outcome = await this.repo.transaction(async (trx) => {
      await this.gate.lock(trx, orgIds, caller, flow.id);
      const existing = new Map((await this.repo.allOf(flow.id, trx)).map((row) => [row.path, row]));
      const taken = [...stored.keys()].filter((path) => existing.has(path));
      if (taken.length > 0 && !overwrite) throw attachmentExists(taken);
      const clashes = treeClashes(new Set([...existing.keys(), ...stored.keys()]));
      if (clashes.length > 0) throw attachmentExists(clashes);
      const duplicates: StoredBytes[] = [];
      const replacedBlobs: string[] = [];
      let created = 0;
      for (const [path, bytes] of stored) {
        const blob = await this.repo.claimBlob(trx, { org_id: flow.org_id, ...blobOf(bytes) });
        if (!blob.created) duplicates.push(bytes);
        const fields = { blob_id: blob.id, content_type: bytes.content_type, updated_by: caller.sub };
        const same = existing.get(path);
        if (same) {
          await this.repo.update(trx, same.id, fields);
          replacedBlobs.push(same.blob_id);
        } else {
          await this.repo.insert(trx, { flow_id: flow.id, org_id: flow.org_id, path, ...fields, created_by: caller.sub });
          created += 1;
        }
      }
      await this.gate.record(trx, caller.audit, {
        eventType: 'flow_attachment.bulk_uploaded',
        orgId: flow.org_id,
        resourceType: 'flow',
        resourceId: flow.id,
        details: { created, replaced: stored.size - created, paths: [...stored.keys()].slice(0, 1000), files: stored.size },
      });
      return { created, replaced: stored.size - created, duplicates, replacedBlobs };
    });
    await this.bytes.discard(outcome.duplicates);
    await this.bytes.release(outcome.replacedBlobs);
    const rows = (await this.repo.allOf(flow.id)).filter((row) => stored.has(row.path));
    return { items: rows.map((row) => attachmentView(row, caller.org.id)), created: outcome.created, replaced: outcome.replaced };
  }

  /** Many renames, files or whole folders (`from` ending in `/`), applied together or not at all. */
  async rename(caller: FlowCaller, flowId: string, renames: readonly Rename[]): Promise<{ items: FlowAttachment[]; moved: number }> {
    const flow = await this.gate.writable(caller, flowId);
    const orgIds = await this.gate.orgIds(caller);
    const movedIds = await this.repo.transaction(async (trx) => {
      await this.gate.lock(trx, orgIds, caller, flow.id);
      const existing = await this.repo.allOf(flow.id, trx);
      const moves = planRenames(existing, renames);
      // Through a free path first: a swap (a -> b, b -> a) never meets the unique index half done.
      for (const move of moves) await this.repo.update(trx, move.id, { path: `\u0001renaming/${move.id}` });
      for (const move of moves) await this.repo.update(trx, move.id, { path: move.to, updated_by: caller.sub });
      await this.gate.record(trx, caller.audit, {
        eventType: 'flow_attachment.bulk_renamed',
        orgId: flow.org_id,
        resourceType: 'flow',
        resourceId: flow.id,
        details: { renames, moved: moves.length, moves: moves.slice(0, 1000).map((m) => ({ from: m.from, to: m.to })) },
      });
      return new Set(moves.map((m) => m.id));
    });
    const rows = (await this.repo.allOf(flow.id)).filter((row) => movedIds.has(row.id));
    return { items: rows.map((row) => attachmentView(row, caller.org.id)), moved: movedIds.size };
  }
}

/** An archive entry's path under `folder`, by the attachments' path rules (422 `invalid_file_path`, field `entry`). */
function entryPath(name: string, folder: string): string {
  return attachmentPath(name, 'entry', folder === '' ? undefined : folder);
}

export type { Rename };
