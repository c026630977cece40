/** Wire shapes of the secrets API. No shape here has room for a value: values only ever go in. */

export interface SecretView {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly description: string | null;
  readonly backend: { readonly id: string; readonly name: string; readonly type: string; readonly scheme: string };
  /** Folder of the secret under the organization's prefix. */
  readonly path: string;
  /** `<scheme>://orgs/<org_slug>/secrets/<path>`: what flows write to use the secret. */
  readonly reference: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly created_by: string | null;
  readonly updated_by: string | null;
}

/** A single secret as read, created or changed: with the key names of a live read of its folder. */
export interface SecretDetailView extends SecretView {
  readonly keys: readonly string[];
}

export interface SecretProviderView {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly scheme: string;
  readonly is_default: boolean;
  /** The reference prefix of the caller's organization in this backend. */
  readonly reference_prefix: string;
}

export interface DiscoveredSecretView {
  readonly backend: { readonly id: string; readonly name: string; readonly scheme: string };
  readonly path: string;
  readonly reference: string;
}

export interface SecretBackendTypeView {
  readonly type: string;
  readonly name: string;
  readonly description: string;
  /** False when this build cannot serve the type: creating a backend of it answers 422 `unsupported_backend_type`. */
  readonly available: boolean;
}

export interface SecretBackendView {
  readonly id: string;
  readonly name: string;
  readonly type: string;
  readonly scheme: string;
  readonly config: Record<string, unknown>;
  readonly is_default: boolean;
  /** The seeded built-in backend: cannot be deleted. */
  readonly is_builtin: boolean;
  readonly secrets_count: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly created_by: string | null;
  readonly updated_by: string | null;
}

export interface SecretBackendItemView {
  readonly location: string;
  readonly org_slug: string | null;
  readonly path: string | null;
}

export interface SecretBackendTestView {
  readonly ok: boolean;
  readonly detail: string;
}
