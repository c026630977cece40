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

export interface SecretResolver {
  /** The secret's metadata when it exists in the organization (no backend call). */
  find(orgId: string, secretId: string): Promise<SecretSummary | undefined>;
  /** A live read of the secret's key folder through its backend; throws SecretBackendError when the backend fails. */
  readFolder(secretId: string): Promise<Readonly<Record<string, string>>>;
  /** Resolves `{{ secret('<ref>') }}` or `<backend_scheme>://orgs/<org_slug>/secrets/<path>` for a caller in `orgId`. */
  resolveReference(orgId: string, reference: string): Promise<string>;
}
