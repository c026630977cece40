import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { problem } from '../../../shared/api/problem.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { BlobStore } from '../../storage/blob-store.js';
import { type ByteSource, StreamMeter } from '../../storage/stream-meter.js';
import { sniffContentType } from './content-type.js';
import { fileAuditView } from './file-view.js';
import type { FileRow, FilesRepo } from './files-repo.js';
import type { RepositoryRow } from './repositories-repo.js';
import { joinPath } from './file-paths.js';
import { refusedByStore } from './store-refusal.js';

/** What an upload or import says of the file it brings; its bytes come separately. */
export interface IncomingFile {
  readonly folder: string;
  readonly name: string;
  readonly declaredType?: string | undefined;
  readonly declaredBytes?: number | undefined;
  readonly sha256?: string | undefined;
  readonly overwrite: boolean;
  readonly sourceUrl?: string | undefined;
}

export function fileTooLarge(limit: number) {
  return problem('file_too_large', `A file may hold at most ${limit} bytes.`, { limit });
}

/**
 * Stores a file's bytes, then its row: the bytes stream into the repository's store under a fresh key
 * while they are counted, hashed and their head kept for sniffing, and the row is written (or, with
 * `overwrite`, the existing file's row points to the new bytes) only once all are stored and match the
 * expected SHA-256. Whatever fails or is refused leaves neither row nor bytes; replaced bytes go once the
 * row no longer names them.
 */
export class FileWriter {
  constructor(
    private readonly repo: FilesRepo,
    private readonly audit: AuditWriter,
    private readonly maxBytes: number,
  ) {}

  async write(
    repository: RepositoryRow,
    store: BlobStore,
    incoming: IncomingFile,
    source: ByteSource,
    context: AuditContext | undefined,
  ): Promise<{ created: boolean; row: FileRow }> {
    if (incoming.declaredBytes !== undefined && incoming.declaredBytes > this.maxBytes) throw fileTooLarge(this.maxBytes);
    const id = randomUUID();
    const key = `files/${id}`;
    const meter = new StreamMeter(this.maxBytes, () => fileTooLarge(this.maxBytes));
    await store.write(key, meter.pass(source) as Readable).catch(refusedByStore);
    let replacedKey: string | undefined;
    try {
      const { size, sha256, head } = meter.measured();
      if (incoming.sha256 !== undefined && incoming.sha256 !== sha256) {
        throw problem('checksum_mismatch', 'The bytes received do not have the SHA-256 given.', {
          expected: incoming.sha256,
          actual: sha256,
        });
      }
      const contentType = await sniffContentType(head, incoming.declaredType);
      const answer = await this.repo.transaction(async (trx) => {
        const by = context?.subject ?? null;
        const existing = await this.repo.atPlace(trx, repository.id, incoming.folder, incoming.name);
        const content = { content_type: contentType, size_bytes: size, sha256, storage_key: key, source_url: incoming.sourceUrl ?? null };
        if (existing) {
          if (!incoming.overwrite) {
            throw problem('file_exists', `The folder already holds ${incoming.name}.`, {
              path: joinPath(incoming.folder, incoming.name),
              file_id: existing.id,
            });
          }
          const row = await this.repo.update(trx, existing.id, { ...content, revision: existing.revision + 1, updated_by: by });
          replacedKey = existing.storage_key;
          await this.#record(trx, context, 'file.replaced', row, { before: fileAuditView(existing), after: fileAuditView(row) });
          return { created: false, row };
        }
        const row = await this.repo.insert(trx, {
          id,
          org_id: repository.org_id,
          repository_id: repository.id,
          folder: incoming.folder,
          name: incoming.name,
          ...content,
          created_by: by,
          updated_by: by,
        });
        await this.#record(trx, context, 'entity.created', row, {
          file: fileAuditView(row),
          ...(incoming.sourceUrl ? { source_url: incoming.sourceUrl } : {}),
        });
        return { created: true, row };
      });
      if (replacedKey) await store.remove(replacedKey).catch(() => undefined);
      return answer;
    } catch (error) {
      await store.remove(key).catch(() => undefined);
      // Two uploads of one new path at once: the unique index lets one in, the other is told as if it came second.
      if ((error as { code?: string }).code === '23505') {
        throw problem('file_exists', `The folder already holds ${incoming.name}.`, { path: joinPath(incoming.folder, incoming.name) });
      }
      throw error;
    }
  }

  async #record(
    trx: Parameters<FilesRepo['insert']>[0],
    context: AuditContext | undefined,
    eventType: string,
    row: FileRow,
    details: Record<string, unknown>,
  ) {
    await this.audit.record(
      context,
      { eventType, action: 'file:manage', resourceType: 'file', resourceId: row.id, orgId: row.org_id, details },
      trx,
    );
  }
}
