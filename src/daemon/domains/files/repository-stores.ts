import { join } from 'node:path';
import type { z } from 'zod';
import type { s3Config } from '../../../shared/api/file-repositories.js';
import { problem } from '../../../shared/api/problem.js';
import { StoreUnavailable, type BlobStore, type StoreCheck } from '../../storage/blob-store.js';
import { LocalBlobStore } from '../../storage/local-blob-store.js';
import type { S3BlobStore } from '../../storage/s3-blob-store.js';
import { SecretReferenceError, type SecretResolver } from '../secrets/secret-resolver.js';
import type { RepositoryRow } from './repositories-repo.js';

type S3Config = z.output<typeof s3Config>;

/** Stores kept open, at most this many (an S3 client holds sockets). */
const MAX_OPEN = 64;

const REFERENCE_FIELDS = ['access_key_id_ref', 'secret_access_key_ref'] as const;

/**
 * The byte store behind each repository: a local one's directory `<data dir>/files/<id>`, an S3 one's
 * bucket with credentials resolved from its secret references when the store is first needed (and again
 * after the repository changes). Open stores are kept per repository and revision (`updated_at`).
 */
export class RepositoryStores {
  readonly #open = new Map<string, { readonly stamp: number; readonly store: BlobStore }>();

  constructor(
    private readonly filesRoot: string,
    private readonly secrets: SecretResolver,
  ) {}

  async of(row: RepositoryRow): Promise<BlobStore> {
    const stamp = new Date(row.updated_at).getTime();
    const kept = this.#open.get(row.id);
    if (kept && kept.stamp === stamp) return kept.store;
    const store =
      row.kind === 'local' ? new LocalBlobStore(join(this.filesRoot, row.id)) : await this.#s3(row.org_id, row.config_json as S3Config);
    this.forget(row.id);
    if (this.#open.size >= MAX_OPEN) this.forget(this.#open.keys().next().value!);
    this.#open.set(row.id, { stamp, store });
    return store;
  }

  /** 422 `secret_reference_unusable` unless each credential reference resolves in the organization. */
  async checkReferences(orgId: string, config: S3Config): Promise<void> {
    for (const field of REFERENCE_FIELDS) {
      try {
        await this.secrets.resolveReference(orgId, config[field]);
      } catch (error) {
        if (error instanceof SecretReferenceError) {
          throw problem('secret_reference_unusable', `config.${field} does not resolve in this organization.`, {
            field: `config.${field}`,
            reason: error.problem,
          });
        }
        throw error;
      }
    }
  }

  /** The repository's connection checks; credentials that no longer resolve are the first failure. */
  async check(row: RepositoryRow): Promise<readonly StoreCheck[]> {
    let store: BlobStore;
    try {
      store = await this.of(row);
    } catch (error) {
      if (error instanceof StoreUnavailable) return [{ check: 'reach', ok: false, reason: error.reason }];
      throw error;
    }
    return store.check();
  }

  forget(id: string): void {
    const kept = this.#open.get(id);
    const store = kept?.store as Partial<S3BlobStore> | undefined;
    store?.destroy?.();
    this.#open.delete(id);
  }

  /** Credentials that no longer resolve (a secret deleted or renamed since) make the store unavailable, not the daemon broken. */
  async #s3(orgId: string, config: S3Config): Promise<S3BlobStore> {
    const [accessKeyId, secretAccessKey] = await Promise.all(
      REFERENCE_FIELDS.map((field) => this.secrets.resolveReference(orgId, config[field])),
    ).catch((error: unknown) => {
      throw error instanceof SecretReferenceError ? new StoreUnavailable('credentials_unresolved', { cause: error }) : error;
    });
    // Loaded on first use: the AWS SDK is large, and a daemon with local repositories only never needs it.
    const { S3BlobStore } = await import('../../storage/s3-blob-store.js');
    return new S3BlobStore({
      endpoint: config.endpoint,
      region: config.region,
      bucket: config.bucket,
      prefix: config.prefix,
      forcePathStyle: config.force_path_style,
      accessKeyId: accessKeyId!,
      secretAccessKey: secretAccessKey!,
    });
  }
}
