import type { Destination } from '../../../shared/api/notifications.js';
import type { DestinationRow } from './destinations-repo.js';

const iso = (at: Date | null) => (at ? at.toISOString() : null);

/** A destination as answered: its config as stored, which holds secret references, never values. */
export function destinationView(row: DestinationRow): Destination {
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    description: row.description,
    kind: row.kind,
    config: row.config_json,
    enabled: row.enabled,
    default_events: row.default_events,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    created_by: row.created_by,
    updated_by: row.updated_by,
    deleted_at: iso(row.deleted_at),
    deleted_by: row.deleted_by,
  };
}

/** What an audit entry keeps of a destination (references only, as answered). */
export function destinationAuditView(row: DestinationRow): Record<string, unknown> {
  return { name: row.name, kind: row.kind, enabled: row.enabled, config: row.config_json, default_events: row.default_events };
}
