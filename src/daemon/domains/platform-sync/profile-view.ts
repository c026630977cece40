import { createHash } from 'node:crypto';
import type { SyncProfile } from '../../../shared/api/platform-sync.js';
import type { ProfileRow } from './profiles-repo.js';

export function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** A profile's source as answers show it: the token only as its reference. */
function sourceView(row: ProfileRow): SyncProfile['source'] {
  switch (row.source_kind) {
    case 'bundle':
      return { kind: 'bundle', bundle: row.source_bundle ?? '', bundle_sha256: sha256(row.source_bundle ?? '') };
    case 'file':
      return { kind: 'file', file_id: row.source_file_id ?? '' };
    case 'installation':
      return { kind: 'installation', base_url: row.source_base_url ?? '', token_ref: row.source_token_ref ?? '', org: row.source_org };
  }
}

export function profileView(row: ProfileRow): SyncProfile {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    source: sourceView(row),
    target: row.target_org_slug === null ? { scope: 'platform' } : { scope: 'org', org: row.target_org_slug },
    families: row.families,
    prune: row.prune,
    revision: row.revision,
    last_applied_at: row.last_applied_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    created_by: row.created_by,
    updated_by: row.updated_by,
  };
}

/** What the audit keeps of a profile: its shape, the token as its reference, an inline bundle by digest only. */
export function profileAuditView(row: ProfileRow): Record<string, unknown> {
  const { source, ...rest } = profileView(row);
  const kept = source.kind === 'bundle' ? { kind: 'bundle', bundle_sha256: source.bundle_sha256 } : source;
  return { name: rest.name, source: kept, target: rest.target, families: rest.families, prune: rest.prune, revision: rest.revision };
}
