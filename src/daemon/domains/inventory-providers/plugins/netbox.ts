import { DrfSource, drfConfig, read, type DrfConfig, type DrfDialect, type Raw } from './drf-source.js';
import type { InventoryPlugin } from './plugin.js';

const OBJECT_TYPES = ['vlan', 'prefix', 'ip_address'] as const;

/** NetBox 3.x and 4.x: `/api/dcim/sites/`, `/api/dcim/devices/` (`role`, or 3.x's `device_role`). */
const NETBOX: DrfDialect = {
  sitesPath: 'api/dcim/sites/',
  devicesPath: 'api/dcim/devices/',
  objectPaths: {
    vlan: { path: 'api/ipam/vlans/', name: (item) => item.name },
    prefix: { path: 'api/ipam/prefixes/', name: (item) => item.prefix },
    ip_address: { path: 'api/ipam/ip-addresses/', name: (item) => item.address },
  },
  listParams: {},
  versionKey: 'netbox-version',
  site: (item: Raw) => ({
    name: read.text(item.name) ?? '',
    description: read.text(item.description),
    address: read.text(item.physical_address),
    tags: read.tags(item),
  }),
  device: (item: Raw) => ({
    name: read.text(item.name) ?? '',
    hostname: read.address(read.nested(item, 'primary_ip', 'address') ?? read.nested(item, 'primary_ip4', 'address')),
    platform: read.text(read.nested(item, 'platform', 'slug') ?? read.nested(item, 'platform', 'name')),
    role: read.text(read.nested(item, 'role', 'slug') ?? read.nested(item, 'device_role', 'slug')),
    site_external_id: read.text(read.nested(item, 'site', 'id')),
    serial: read.text(item.serial),
    tags: read.tags(item),
    attributes: {
      status: read.nested(item, 'status', 'value') ?? null,
      device_type: read.nested(item, 'device_type', 'model') ?? null,
      custom_fields: item.custom_fields ?? {},
    },
  }),
};

export const netboxPlugin: InventoryPlugin = {
  type: 'netbox',
  label: 'NetBox',
  description: 'NetBox REST API (3.x, 4.x): sites, devices, VLANs, prefixes and IP addresses; token authentication.',
  incremental: true,
  objectTypes: OBJECT_TYPES,
  credential: 'required',
  configSchema: drfConfig(OBJECT_TYPES),
  open: (config, credential, http) => new DrfSource(NETBOX, config as DrfConfig, credential, http),
};
