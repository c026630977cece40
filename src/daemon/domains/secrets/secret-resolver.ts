/**
 * What other domains (webhook verification, run preparation) may ask of secrets. Values leave this
 * interface only as return values of `readFolder` / `resolveReference`; they are never logged.
 */
export interface SecretSummary {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
}

/** The backend holding a secret's values failed or answered something unusable (answer 503 upstream). */
export class SecretBackendError extends Error {
  override name = 'SecretBackendError';
}

/**
 * `readFolder` was given the id of no secret (deleted meanwhile). A SecretBackendError, so callers that
 * answer 503 for "nothing usable" (webhook verification) need no second case.
 */
export class SecretNotFoundError extends SecretBackendError {
  override name = 'SecretNotFoundError';
}

/** Why `resolveReference` refused a reference (the caller's mistake, not the backend's). */
export type SecretReferenceProblem =
  /** Neither `{{ secret('<ref>') }}` nor `<scheme>://orgs/<org_slug>/secrets/<path>[#key]`. */
  | 'malformed'
  /** The location names another organization than the caller's. */
  | 'other_organization'
  /** No backend has this scheme. */
  | 'unknown_scheme'
  /** No secret of the organization has this name, or this backend and path. */
  | 'not_found'
  /** The `#key` is not in the folder. */
  | 'key_missing'
  /** No `#key`, and the folder has none of the preferred keys and more than one key. */
  | 'key_ambiguous';

export class SecretReferenceError extends Error {
  override name = 'SecretReferenceError';
  constructor(
    readonly problem: SecretReferenceProblem,
    message: string,
  ) {
    super(message);
  }
}

export interface SecretResolver {
  /** The secret's metadata when it exists in the organization (no backend call). */
  find(orgId: string, secretId: string): Promise<SecretSummary | undefined>;
  /** A live read of the secret's key folder through its backend; throws SecretBackendError when the backend fails. */
  readFolder(secretId: string): Promise<Readonly<Record<string, string>>>;
  /**
   * As `readFolder`, for a hot path (a webhook's signing key): a built-in backend's folder, whose values
   * change only through this database, may come from a cache that every change to secrets or their values
   * empties (TriggerConfig); other backends are read live.
   */
  readFolderCached(secretId: string): Promise<Readonly<Record<string, string>>>;
  /**
   * Resolves `{{ secret('<ref>') }}` or `<backend_scheme>://orgs/<org_slug>/secrets/<path>` for a caller in `orgId`
   * to one value: `#<key>` selects a key, otherwise `pickSecretValue` (src/shared/secrets/pick-value.ts)
   * chooses. Throws SecretReferenceError for a reference it refuses (another organization's among them)
   * and SecretBackendError when the backend fails.
   */
  resolveReference(orgId: string, reference: string): Promise<string>;
}
