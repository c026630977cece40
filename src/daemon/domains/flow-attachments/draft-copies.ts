import type { FlowCaller, FlowDuplicateHook } from '../flows/module.js';
import type { AttachmentBytes, StoredBytes } from './attachment-bytes.js';
import type { AttachmentsRepo } from './attachments-repo.js';
import type { BulkService } from './bulk-service.js';

/**
 * A duplicated flow's draft gets the source draft's attachments. Within one organization the copy's rows
 * point to the same blobs (no byte copied). From another organization (the shared one's flow, taken to
 * change it) the bytes are copied into the caller's organization's default repository once the copy has
 * committed, and committed as a bulk upload is (one audit entry), so no organization's flows depend on
 * another's repository; a failed copy undoes the duplicate.
 */
export class DraftCopies {
  constructor(
    private readonly repo: AttachmentsRepo,
    private readonly bytes: AttachmentBytes,
    private readonly bulk: Pick<BulkService, 'commit'>,
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
    const stored = new Map<string, StoredBytes>();
    try {
      for (const row of rows) {
        // Bytes already taken under the upload limits: the copy sets none of its own.
        const written = await this.bytes.write(target, await this.bytes.open(row), Number.MAX_SAFE_INTEGER, () => new Error('no limit'));
        stored.set(row.path, { ...written, content_type: row.content_type });
      }
      await this.bulk.commit(caller, to, stored, false);
    } catch (error) {
      await this.bytes.discard([...stored.values()]);
      throw error;
    }
  }
}
