import type { RegistryCredential } from '../../../shared/api/registry.js';
import type { RegistryCredentialRow } from './credentials-repo.js';

/** A credential as answers show it: the password only as its reference. */
export function credentialView(row: RegistryCredentialRow): RegistryCredential {
  return {
    id: row.id,
    org_id: row.org_id,
    registry: row.registry,
    url: row.url,
    username: row.username,
    password_ref: row.password_ref,
    description: row.description,
    last_tested_at: row.last_tested_at?.toISOString() ?? null,
    last_test_ok: row.last_test_ok,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    created_by: row.created_by,
    updated_by: row.updated_by,
  };
}
