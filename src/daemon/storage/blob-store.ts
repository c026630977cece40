import { Readable } from 'node:stream';

/**
 * Bytes kept under a key, streamed both ways and never held whole in memory: what a file repository is
 * (local directory, S3 bucket), and what flow attachments and binary artifacts keep their bytes in. A store
 * knows nothing of rows, sizes or limits: its caller measures the stream it hands in (StreamMeter) and
 * commits its row once `write` has stored every byte. A key is a relative `/`-separated path its caller
 * makes (never a user's text), such as `files/<file id>`.
 */
export interface BlobStore {
  /** Stores every byte of `source` under `key`, replacing what was there only once all of it is stored. On failure nothing of it is left and the error is rethrown. */
  write(key: string, source: Readable): Promise<void>;
  /** The bytes, opened now (a missing key rejects with BlobMissing before an answer starts). */
  open(key: string): Promise<Readable>;
  /** Forgets a key's bytes; a missing key is no error. */
  remove(key: string): Promise<void>;
  /** Forgets the folder `prefix` once its keys are removed (a directory left empty); one still holding keys, or none, is no error. */
  removeEmptyFolder(prefix: string): Promise<void>;
  /** Whether the store answers and lets this daemon write, read and delete: each check with a coded reason. */
  check(): Promise<StoreCheck[]>;
}

export type StoreCheckName = 'reach' | 'write' | 'read' | 'delete';
export type StoreCheckReason =
  'unreachable' | 'credentials_unresolved' | 'access_denied' | 'bucket_not_found' | 'not_writable' | 'not_readable' | 'error';

export interface StoreCheck {
  readonly check: StoreCheckName;
  readonly ok: boolean;
  readonly reason?: StoreCheckReason;
}

/** A key with no bytes (removed by hand, or another daemon's directory). */
export class BlobMissing extends Error {
  override name = 'BlobMissing';
}

/** A store that cannot be opened now for a reason its operator repairs: an S3 repository's credentials no longer resolve. */
export class StoreUnavailable extends Error {
  override name = 'StoreUnavailable';

  constructor(
    readonly reason: StoreCheckReason,
    options?: ErrorOptions,
  ) {
    super(`the store cannot be opened: ${reason}`, options);
  }
}

/** A failure of the store itself (S3 answered an error or could not be reached, a directory not readable), not of the bytes sent. */
export function isStoreFailure(error: unknown): boolean {
  const e = error as { $metadata?: unknown; code?: string };
  return (
    error instanceof StoreUnavailable ||
    e.$metadata !== undefined ||
    ['ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'EAI_AGAIN', 'EHOSTUNREACH', 'EACCES'].includes(e.code ?? '')
  );
}

/** A key as a store may use it: relative, `/`-separated, no empty, `.` or `..` segment. */
export function assertKey(key: string): void {
  if (key === '' || key.split('/').some((s) => s === '' || s === '.' || s === '..') || key.includes('\\')) {
    throw new TypeError(`not a storage key: ${key}`);
  }
}

/** Runs the probe checks every store makes: write a small object, read it back, delete it. */
export async function probeChecks(
  store: Pick<BlobStore, 'write' | 'open' | 'remove'>,
  key: string,
  classify: (error: unknown) => StoreCheckReason,
): Promise<StoreCheck[]> {
  const payload = Buffer.from(`svc connection test ${key}`);
  try {
    await store.write(key, Readable.from([payload]));
  } catch (error) {
    const reason = classify(error);
    const reached = reason !== 'unreachable';
    return [
      { check: 'reach', ok: reached, ...(reached ? {} : { reason }) },
      { check: 'write', ok: false, reason: reached ? reason : 'unreachable' },
    ];
  }
  const checks: StoreCheck[] = [
    { check: 'reach', ok: true },
    { check: 'write', ok: true },
  ];
  try {
    const chunks: Buffer[] = [];
    for await (const chunk of await store.open(key)) chunks.push(chunk as Buffer);
    const same = Buffer.concat(chunks).equals(payload);
    checks.push(same ? { check: 'read', ok: true } : { check: 'read', ok: false, reason: 'not_readable' });
  } catch (error) {
    checks.push({ check: 'read', ok: false, reason: classify(error) === 'access_denied' ? 'access_denied' : 'not_readable' });
  }
  try {
    await store.remove(key);
    checks.push({ check: 'delete', ok: true });
  } catch (error) {
    checks.push({ check: 'delete', ok: false, reason: classify(error) });
  }
  return checks;
}
