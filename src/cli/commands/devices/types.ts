import type { Device } from '../../../shared/api/devices.js';
import type { Column, OffsetPage } from '../../runtime/table.js';

/** The device routes' wire shapes, inferred from the schemas the daemon answers with (types only: no zod at run time). */
export type { Device };
export type DevicePage = OffsetPage<Device>;

const maintenance = (d: Device) => (d.overlay.maintenance === null ? '-' : d.overlay.maintenance ? 'on' : 'off');
const allTags = (d: Device) => [...new Set([...d.tags, ...d.overlay.tags])].join(',');

export const DEVICE_COLUMNS: Column<Device>[] = [
  { header: 'ID', value: (d) => d.id },
  { header: 'NAME', value: (d) => d.name },
  { header: 'HOSTNAME', value: (d) => d.hostname },
  { header: 'PLATFORM', value: (d) => d.platform },
  { header: 'ROLE', value: (d) => d.role },
  { header: 'TAGS', value: allTags },
  { header: 'MAINTENANCE', value: maintenance },
];

/** One device as `field: value` lines; its attributes as JSON. */
export const deviceFields = (d: Device) =>
  [
    ['id', d.id],
    ['name', d.name],
    ['hostname', d.hostname],
    ['platform', d.platform],
    ['role', d.role],
    ['site_id', d.site_id],
    ['serial', d.serial],
    ['tags', d.tags.join(', ')],
    ['local_tags', d.overlay.tags.join(', ')],
    ['maintenance', maintenance(d)],
    ['source', d.provider_managed ? `provider ${d.provider_id ?? ''}`.trim() : 'local'],
    ['shared', d.shared ? 'yes (read-only here)' : 'no'],
    ['attributes', JSON.stringify(d.attributes)],
    ['updated_at', d.updated_at],
  ] as const;
