import { isManagementAddress } from '../../../shared/inventory/hostname.js';
import { storableJson } from '../../../shared/json/unstorable-text.js';
import type { ImportItem, ImportTable } from './import-repo.js';
import type { ImportedDevice, ImportedObject, ImportedSite } from './plugins/plugin.js';

/**
 * How provider items become rows: the same field rules as the API's (trimmed, bounded, no control
 * characters, a management address or nothing), so an imported row is one the API could have made. An
 * item without a usable name or id is not imported (counted as skipped).
 */

export const SITES: ImportTable = {
  table: 'sites',
  columns: { name: 'text', description: 'text', address: 'text', tags: 'jsonb' },
  uniqueNames: true,
  stamped: true,
};

export const DEVICES: ImportTable = {
  table: 'devices',
  columns: {
    name: 'text',
    hostname: 'text',
    platform: 'text',
    role: 'text',
    site_id: 'uuid',
    serial: 'text',
    tags: 'jsonb',
    attributes_json: 'jsonb',
  },
  uniqueNames: true,
  stamped: true,
};

export const objectsTable = (objectType: string): ImportTable => ({
  table: 'inventory_objects',
  columns: { name: 'text', data_json: 'jsonb', provider_updated_at: 'timestamptz' },
  uniqueNames: false,
  stamped: false,
  scope: { object_type: objectType },
});

const CONTROL = /\p{Cc}/gu;

/** Trimmed, control characters removed, at most `max` characters; null when nothing is left. */
function bounded(value: string | null, max: number): string | null {
  if (value === null) return null;
  const clean = [...value.replace(CONTROL, '').trim()].slice(0, max).join('');
  return clean.length > 0 ? clean : null;
}

function tagsOf(tags: readonly string[]): string[] {
  const kept = new Set<string>();
  for (const tag of tags) {
    const clean = bounded(tag, 100);
    if (clean !== null && kept.size < 100) kept.add(clean);
  }
  return [...kept];
}

const externalId = (id: string) => bounded(id, 255);

export function siteItem(site: ImportedSite): ImportItem | undefined {
  const name = bounded(site.name, 255);
  const id = externalId(site.external_id);
  if (name === null || id === null) return undefined;
  return {
    external_id: id,
    values: { name, description: bounded(site.description, 10_000), address: bounded(site.address, 1000), tags: tagsOf(site.tags) },
  };
}

export function deviceItem(device: ImportedDevice, siteIds: ReadonlyMap<string, string>): ImportItem | undefined {
  const name = bounded(device.name, 255);
  const id = externalId(device.external_id);
  if (name === null || id === null) return undefined;
  const hostname = bounded(device.hostname, 255);
  return {
    external_id: id,
    values: {
      name,
      hostname: hostname !== null && isManagementAddress(hostname) ? hostname : null,
      platform: bounded(device.platform, 100),
      role: bounded(device.role, 100),
      site_id: device.site_external_id === null ? null : (siteIds.get(device.site_external_id) ?? null),
      serial: bounded(device.serial, 255),
      tags: tagsOf(device.tags),
      attributes_json: storableJson(device.attributes),
    },
  };
}

export function objectItem(object: ImportedObject): ImportItem | undefined {
  const id = externalId(object.external_id);
  if (id === null) return undefined;
  return {
    external_id: id,
    values: { name: bounded(object.name, 255) ?? id, data_json: storableJson(object.data), provider_updated_at: object.last_updated },
  };
}
