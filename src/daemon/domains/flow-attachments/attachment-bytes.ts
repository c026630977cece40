import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { problem } from '../../../shared/api/problem.js';
import type { AuditContext } from '../../audit/audit-context.js';
import { BlobMissing, isStoreFailure, type BlobStore } from '../../storage/blob-store.js';
import { type ByteSource, StreamMeter } from '../../storage/stream-meter.js';
import { sniffContentType } from '../files/content-type.js';
import type { RepositoryBlobs } from '../files/repository-blobs.js';
import type { OrgRef } from '../files/repositories-service.js';
import type { AttachmentsRepo, LooseBlob } from './attachments-repo.js';
import { refusedByStore } from '../files/store-refusal.js';

/** Bytes stored under a fresh key, measured on their way: not yet any row's. */
export interface StoredBytes {
  readonly repository_id: string;
  readonly storage_key: string;
  readonly sha256: string;
  readonly size_bytes: number;
  readonly content_type: string;
}

export function attachmentTooLarge(limit: number, what: 'file' | 'files' | 'bytes') {
  return problem('attachment_too_large', `The upload is over the limit of ${limit} ${what === 'files' ? 'files' : 'bytes'}.`, {
    limit,
    what,
  });
}

/**
 * Where attachments' bytes go: the organization's default file repository, each upload under a key of its
 * own (`attachments/<uuid>`), streamed through the meter (size, SHA-256, the head for sniffing) and never
 * held whole. Rows dedupe by content afterwards (a blob per repository and SHA-256), so bytes that turn out
 * to be there already are removed again; bytes no row points to are removed by `release`.
 */
export class AttachmentBytes {
  constructor(
    private readonly blobs: RepositoryBlobs,
    private readonly repo: AttachmentsRepo,
  ) {}

  /** The organization's default store, once per upload (a bulk upload writes all its files there). */
  target(org: OrgRef, context: AuditContext | undefined) {
    return this.blobs.defaultStore(org.id, context).catch(refusedByStore);
  }

  async write(
    target: { repository: { id: string }; store: BlobStore },
    source: ByteSource,
    limit: number,
    refuse: () => Error,
    declaredType?: string,
  ): Promise<StoredBytes> {
    const key = `attachments/${randomUUID()}`;
    const meter = new StreamMeter(limit, refuse);
    await target.store.write(key, meter.pass(source) as Readable).catch(refusedByStore);
    const { size, sha256, head } = meter.measured();
    return {
      repository_id: target.repository.id,
      storage_key: key,
      sha256,
      size_bytes: size,
      content_type: await sniffContentType(head, declaredType),
    };
  }

  /** Removes stored bytes that no row took (a refused upload, or content already stored). Best effort. */
  async discard(stored: readonly { repository_id: string; storage_key: string }[]): Promise<void> {
    for (const { repository_id, storage_key } of stored) {
      try {
        await (await this.blobs.store(repository_id))?.remove(storage_key);
      } catch {
        // Left for the store's owner: nothing points to these bytes.
      }
    }
  }

  /** Blobs these rows no longer need (or, with 'any', every blob nothing points to) go, bytes and all. */
  async release(blobIds: readonly string[] | 'any'): Promise<number> {
    const loose: LooseBlob[] = await this.repo.sweep(blobIds);
    await this.discard(loose);
    return loose.length;
  }

  /** The bytes, opened before the answer starts (503 `attachment_unavailable` when the store cannot give them). */
  async open(row: { repository_id: string; storage_key: string }): Promise<Readable> {
    try {
      const store = await this.blobs.store(row.repository_id);
      if (!store) throw new BlobMissing(row.storage_key);
      return await store.open(row.storage_key);
    } catch (error) {
      if (error instanceof BlobMissing || isStoreFailure(error)) {
        throw problem('attachment_unavailable', "The attachment's bytes cannot be read from its file repository now.");
      }
      throw error;
    }
  }
}
