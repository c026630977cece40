import { iso } from './access.js';
import type { DeviceRow } from './devices-repo.js';
import type { SiteRow } from './sites-repo.js';

interface Stamps {
  readonly created_at: string;
  readonly updated_at: string;
  readonly created_by: string | null;
  readonly updated_by: string | null;
  readonly deleted_at: string | null;
  readonly deleted_by: string | null;
}

export interface SiteView extends Stamps {
  readonly id: string;
  readonly org_id: string;
  /** The row belongs to the shared organization (readable here, not writable). */
  readonly shared: boolean;
  readonly name: string;
  readonly description: string | null;
  readonly parent_id: string | null;
  readonly address: string | null;
  readonly tags: string[];
  readonly provider_id: string | null;
  readonly external_id: string | null;
}

export interface SiteTreeNode extends SiteView {
  readonly children: SiteTreeNode[];
}

export interface DeviceOverlay {
  readonly tags: string[];
  /** Local maintenance override; null when none is set. */
  readonly maintenance: boolean | null;
}

export interface DeviceView extends Stamps {
  readonly id: string;
  readonly org_id: string;
  readonly shared: boolean;
  readonly name: string;
  readonly hostname: string | null;
  readonly platform: string | null;
  readonly role: string | null;
  readonly site_id: string | null;
  readonly serial: string | null;
  readonly tags: string[];
  readonly attributes: Record<string, unknown>;
  readonly overlay: DeviceOverlay;
  readonly provider_id: string | null;
  readonly external_id: string | null;
  /** Provider-sourced: its own fields change only through provider sync; `overlay` is the local part. */
  readonly provider_managed: boolean;
}

function stamps(row: SiteRow | DeviceRow): Stamps {
  return {
    created_at: iso(row.created_at)!,
    updated_at: iso(row.updated_at)!,
    created_by: row.created_by,
    updated_by: row.updated_by,
    deleted_at: iso(row.deleted_at),
    deleted_by: row.deleted_by,
  };
}

export function siteView(row: SiteRow, orgId: string): SiteView {
  return {
    id: row.id,
    org_id: row.org_id,
    shared: row.org_id !== orgId,
    name: row.name,
    description: row.description,
    parent_id: row.parent_id,
    address: row.address,
    tags: row.tags,
    provider_id: row.provider_id,
    external_id: row.external_id,
    ...stamps(row),
  };
}

/** The overlay as stored (`{tags?, maintenance?}`), with its absent members filled in. */
export function overlayOf(row: DeviceRow): DeviceOverlay {
  const stored = row.overlay_json as { tags?: unknown; maintenance?: unknown };
  return {
    tags: Array.isArray(stored.tags) ? stored.tags.filter((t): t is string => typeof t === 'string') : [],
    maintenance: typeof stored.maintenance === 'boolean' ? stored.maintenance : null,
  };
}

export function deviceView(row: DeviceRow, orgId: string): DeviceView {
  return {
    id: row.id,
    org_id: row.org_id,
    shared: row.org_id !== orgId,
    name: row.name,
    hostname: row.hostname,
    platform: row.platform,
    role: row.role,
    site_id: row.site_id,
    serial: row.serial,
    tags: row.tags,
    attributes: row.attributes_json,
    overlay: overlayOf(row),
    provider_id: row.provider_id,
    external_id: row.external_id,
    provider_managed: row.provider_id !== null,
    ...stamps(row),
  };
}
