import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { BlobMissing, type BlobStore, probeChecks, type StoreCheck, type StoreCheckReason } from './blob-store.js';

export interface S3Location {
  /** Any S3-compatible API (MinIO, Ceph, a test server); undefined for AWS itself. */
  readonly endpoint?: string | undefined;
  readonly region: string;
  readonly bucket: string;
  /** Prepended to every key: `''` or segments each ending in `/`. */
  readonly prefix: string;
  readonly forcePathStyle: boolean;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** Parts of a multipart upload: at most PART_BYTES × QUEUE bytes of a file are in memory at once. */
const PART_BYTES = 8 * 1024 * 1024;
const QUEUE = 2;

/**
 * Bytes as objects of an S3-compatible bucket (AWS SDK v3). Writes stream through `lib-storage`'s
 * multipart upload (one PUT for a small file), so a file of any size passes with a few parts in memory;
 * an object appears only when its upload completes, and a failed one is aborted.
 */
export class S3BlobStore implements BlobStore {
  readonly #client: S3Client;

  constructor(private readonly location: S3Location) {
    this.#client = new S3Client({
      ...(location.endpoint ? { endpoint: location.endpoint } : {}),
      region: location.region,
      forcePathStyle: location.forcePathStyle,
      credentials: { accessKeyId: location.accessKeyId, secretAccessKey: location.secretAccessKey },
      // Checksums only where S3 demands them: many S3-compatible stores refuse the newer trailing checksums.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 2,
      requestHandler: { connectionTimeout: 5000, requestTimeout: 60_000 },
    });
  }

  async write(key: string, source: Readable): Promise<void> {
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.location.bucket, Key: this.#key(key), Body: source },
      partSize: PART_BYTES,
      queueSize: QUEUE,
      leavePartsOnError: false,
    });
    // A source that fails (the size limit passed, the client gone) must fail the upload, which aborts it.
    const failed = new Promise<never>((_, reject) => source.once('error', reject));
    failed.catch(() => undefined);
    try {
      await Promise.race([upload.done(), failed]);
    } catch (error) {
      await upload.abort().catch(() => undefined);
      throw error;
    }
  }

  async open(key: string): Promise<Readable> {
    try {
      const answer = await this.#client.send(new GetObjectCommand({ Bucket: this.location.bucket, Key: this.#key(key) }));
      const body = answer.Body;
      if (body instanceof Readable) return body;
      throw new Error('the S3 client answered a body that is not a Node stream');
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'NoSuchKey' || name === 'NotFound') throw new BlobMissing(`no object under ${key}`);
      throw error;
    }
  }

  async remove(key: string): Promise<void> {
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.location.bucket, Key: this.#key(key) }));
  }

  /** A bucket has keys, no folders: nothing is left once they are removed. */
  async removeEmptyFolder(): Promise<void> {}

  async check(): Promise<StoreCheck[]> {
    try {
      await this.#client.send(new HeadBucketCommand({ Bucket: this.location.bucket }));
    } catch (error) {
      const reason = classifyS3Error(error);
      if (reason === 'unreachable') return [{ check: 'reach', ok: false, reason }];
      return [
        { check: 'reach', ok: true },
        { check: 'write', ok: false, reason },
      ];
    }
    return probeChecks(this, `.probe/${randomUUID()}`, classifyS3Error);
  }

  /** Closes the client's sockets (a store forgotten after its repository changed). */
  destroy(): void {
    this.#client.destroy();
  }

  #key(key: string): string {
    return `${this.location.prefix}${key}`;
  }
}

/** An S3 error as a connection check's reason. */
export function classifyS3Error(error: unknown): StoreCheckReason {
  const e = error as { name?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const name = e.name ?? '';
  const status = e.$metadata?.httpStatusCode;
  if (name === 'NoSuchBucket' || (name === 'NotFound' && status === 404)) return 'bucket_not_found';
  if (['AccessDenied', 'InvalidAccessKeyId', 'SignatureDoesNotMatch', 'Forbidden'].includes(name) || status === 403 || status === 401) {
    return 'access_denied';
  }
  const code = e.code ?? name;
  if (['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH', 'TimeoutError'].includes(code))
    return 'unreachable';
  if (status === undefined) return 'unreachable';
  return 'error';
}
