import { DrfSource, drfConfig, read, type DrfConfig, type DrfDialect, type Raw } from './drf-source.js';
import type { InventoryPlugin } from './plugin.js';

const OBJECT_TYPES = ['vlan', 'prefix', 'ip_address'] as const;

/**
 * Nautobot 2.x: sites became locations (`/api/dcim/locations/`, a device's `location`); related objects
 * are bare references unless `depth=1` is asked for, so every listing asks for it.
 */
const NAUTOBOT: DrfDialect = {
  sitesPath: 'api/dcim/locations/',
  devicesPath: 'api/dcim/devices/',
  objectPaths: {
    vlan: { path: 'api/ipam/vlans/', name: (item) => item.name },
    prefix: { path: 'api/ipam/prefixes/', name: (item) => item.prefix },
    ip_address: { path: 'api/ipam/ip-addresses/', name: (item) => item.address },
  },
  listParams: { depth: '1' },
  versionKey: 'nautobot-version',
  site: (item: Raw) => ({
    name: read.text(item.name) ?? '',
    description: read.text(item.description),
    address: read.text(item.physical_address),
    tags: read.tags(item),
  }),
  device: (item: Raw) => ({
    name: read.text(item.name) ?? '',
    hostname: read.address(read.nested(item, 'primary_ip4', 'address') ?? read.nested(item, 'primary_ip', 'address')),
    platform: read.text(read.nested(item, 'platform', 'name')),
    role: read.text(read.nested(item, 'role', 'name')),
    site_external_id: read.text(read.nested(item, 'location', 'id')),
    serial: read.text(item.serial),
    tags: read.tags(item),
    attributes: {
      status: read.nested(item, 'status', 'name') ?? null,
      device_type: read.nested(item, 'device_type', 'model') ?? null,
      custom_fields: item.custom_fields ?? {},
    },
  }),
};

export const nautobotPlugin: InventoryPlugin = {
  type: 'nautobot',
  label: 'Nautobot',
  description: 'Nautobot 2.x REST API: locations (as sites), devices, VLANs, prefixes and IP addresses; token authentication.',
  incremental: true,
  objectTypes: OBJECT_TYPES,
  credential: 'required',
  configSchema: drfConfig(OBJECT_TYPES),
  open: (config, credential, http) => new DrfSource(NAUTOBOT, config as DrfConfig, credential, http),
};
