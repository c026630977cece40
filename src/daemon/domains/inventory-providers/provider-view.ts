import type { Provider, SyncRun } from '../../../shared/api/inventory-providers.js';
import type { ProviderRow } from './providers-repo.js';
import type { SyncRunRow } from './sync-runs-repo.js';
import { emptyCounts } from './sync-counts.js';

const iso = (at: Date | null) => (at ? at.toISOString() : null);

/** A provider as answered: its configuration and credential reference (a reference, never a value). */
export function providerView(row: ProviderRow): Provider {
  return {
    id: row.id,
    provider_id: row.provider_id,
    org_id: row.org_id,
    type: row.type,
    name: row.name,
    description: row.description,
    config: row.config_json,
    credential_ref: row.credential_ref,
    enabled: row.enabled,
    sync_watermark: iso(row.sync_watermark),
    last_sync:
      row.last_sync_id && row.last_sync_status && row.last_sync_at
        ? { id: row.last_sync_id, status: row.last_sync_status, at: row.last_sync_at.toISOString() }
        : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    created_by: row.created_by,
    updated_by: row.updated_by,
    deleted_at: iso(row.deleted_at),
    deleted_by: row.deleted_by,
  };
}

/** What an audit entry keeps of a provider: who it is and how it is set up, never more than the answer shows. */
export function providerAuditView(row: ProviderRow): Record<string, unknown> {
  return { provider_id: row.provider_id, type: row.type, name: row.name, enabled: row.enabled, credential_ref: row.credential_ref };
}

export function syncRunView(row: SyncRunRow, providerId: string): SyncRun {
  return {
    id: row.id,
    provider_id: providerId,
    mode: row.mode,
    status: row.status,
    resumed_from: row.resumed_from,
    started_at: row.started_at.toISOString(),
    finished_at: iso(row.finished_at),
    counts: { ...emptyCounts(), ...row.counts_json },
    error: row.error_json,
    triggered_by: row.triggered_by,
  };
}
