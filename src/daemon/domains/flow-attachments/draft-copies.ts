import type { FlowCaller, FlowDuplicateHook } from '../flows/module.js';
import type { AttachmentBytes, StoredBytes } from './attachment-bytes.js';
import type { AttachmentsRepo } from './attachments-repo.js';
import { blobOf } from './attachments-service.js';

/**
 * A duplicated flow's draft gets the source draft's attachments. Within one organization the copy's rows
 * point to the same blobs (no byte copied). From another organization (the shared one's flow, taken to
 * change it) the bytes are copied into the caller's organization's default repository once the copy has
 * committed, so no organization's flows depend on another's repository; a failed copy undoes the duplicate.
 */
export class DraftCopies {
  constructor(
    private readonly repo: AttachmentsRepo,
    private readonly bytes: AttachmentBytes,
  ) {}

  readonly onDuplicate: FlowDuplicateHook = async (from, to, trx, caller) => {
    if (from.org_id === to.org_id) {
      await this.repo.copyDraft(trx, from.id, to, caller.sub);
      return undefined;
    }
    return () => this.#copyAcross(from.id, to, caller);
  };

  async #copyAcross(fromFlowId: string, to: { id: string; org_id: string }, caller: FlowCaller): Promise<void> {
    const rows = await this.repo.allOf(fromFlowId);
    if (rows.length === 0) return;
    const target = await this.bytes.target(caller.org, caller.audit);
    const stored: StoredBytes[] = [];
    let known: StoredBytes[] = [];
    try {
      for (const row of rows) {
        // Bytes already taken under the upload limits: the copy sets none of its own.
        const written = await this.bytes.write(target, await this.bytes.open(row), Number.MAX_SAFE_INTEGER, () => new Error('no limit'));
        stored.push({ ...written, content_type: row.content_type });
      }
      known = await this.repo.transaction(async (trx) => {
        const already: StoredBytes[] = [];
        for (const [i, row] of rows.entries()) {
          const bytes = stored[i]!;
          const blob = await this.repo.claimBlob(trx, { org_id: to.org_id, ...blobOf(bytes) });
          if (!blob.created) already.push(bytes);
          await this.repo.insert(trx, {
            flow_id: to.id,
            org_id: to.org_id,
            path: row.path,
            blob_id: blob.id,
            content_type: row.content_type,
            created_by: caller.sub,
            updated_by: caller.sub,
          });
        }
        return already;
      });
    } catch (error) {
      await this.bytes.discard(stored);
      throw error;
    }
    // Bytes the repository already held under a blob: the rows point there, these copies are not needed.
    await this.bytes.discard(known);
  }
}
