import type { Device } from '../../../shared/api/devices.js';
import type { Site, SiteTreeNode } from '../../../shared/api/sites.js';
import { iso } from './access.js';
import type { DeviceRow } from './devices-repo.js';
import type { SiteRow } from './sites-repo.js';

/** The wire shapes, as `src/shared/api/{sites,devices}.ts` declare them. */
export type SiteView = Site;
export type { SiteTreeNode };
export type DeviceView = Device;
export type DeviceOverlay = Device['overlay'];

type Stamps = Pick<Site, 'created_at' | 'updated_at' | 'created_by' | 'updated_by' | 'deleted_at' | 'deleted_by'>;

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
