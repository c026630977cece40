import { orgSecretsPrefix, secretReference } from '../../../shared/secrets/reference.js';
import type { SecretBackendView, SecretDetailView, SecretProviderView, SecretView } from '../../../shared/api/secrets.js';
import type { SecretBackendRow, SecretBackendWithUse } from './secret-backends-repo.js';
import type { SecretRecord } from './secrets-repo.js';

/** The reference scheme of the seeded built-in backend, which cannot be deleted. */
export const BUILTIN_SCHEME = 'builtin';

function iso(value: Date | string): string {
  return new Date(value).toISOString();
}

export function secretView(row: SecretRecord): SecretView {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    description: row.description,
    backend: { id: row.backend_id, name: row.backend_name, type: row.backend_type, scheme: row.backend_scheme },
    path: row.path,
    reference: secretReference(row.backend_scheme, row.org_slug, row.path),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    created_by: row.created_by,
    updated_by: row.updated_by,
  };
}

export function secretDetailView(row: SecretRecord, keys: Iterable<string>): SecretDetailView {
  return { ...secretView(row), keys: [...keys].sort() };
}

export function isBuiltinBackend(row: Pick<SecretBackendRow, 'type' | 'scheme'>): boolean {
  return row.type === 'builtin' && row.scheme === BUILTIN_SCHEME;
}

export function backendView(row: SecretBackendWithUse): SecretBackendView {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    scheme: row.scheme,
    config: row.config_json,
    is_default: row.is_default,
    is_builtin: isBuiltinBackend(row),
    secrets_count: row.secrets_count,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    created_by: row.created_by,
    updated_by: row.updated_by,
  };
}

export function providerView(row: SecretBackendRow, orgSlug: string): SecretProviderView {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    scheme: row.scheme,
    is_default: row.is_default,
    reference_prefix: `${row.scheme}://${orgSecretsPrefix(orgSlug)}`,
  };
}
