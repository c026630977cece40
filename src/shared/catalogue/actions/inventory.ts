import type { ActionDefinition } from '../types.js';

/** Catalogue section "inventory". */
export const inventoryActions: readonly ActionDefinition[] = [
  {
    action: 'site:view',
    policy: 'viewer',
    routes: ['GET /sites/tree', 'GET /sites/{site_id}', 'GET /sites'],
  },
  {
    action: 'site:manage',
    policy: 'admin',
    routes: [
      'POST /sites/{site_id}/duplicate',
      'POST /sites/{site_id}/restore',
      'POST /sites/bulk/restore',
      'POST /sites/bulk/delete',
      'PATCH /sites/{site_id}',
      'DELETE /sites/{site_id}',
      'POST /sites',
    ],
  },
  {
    action: 'site:purge',
    policy: 'admin',
    routes: ['DELETE /sites/{site_id}/permanent', 'POST /sites/bulk/permanent'],
  },
  {
    action: 'device:view',
    policy: 'viewer',
    routes: ['GET /devices/search/ids', 'GET /devices/search', 'GET /devices/{device_id}', 'GET /devices'],
  },
  {
    action: 'device:manage',
    policy: 'admin',
    routes: [
      'POST /devices/{device_id}/duplicate',
      'POST /devices/{device_id}/restore',
      'POST /devices/bulk/restore',
      'POST /devices/bulk/delete',
      'PUT /devices/{device_id}',
      'DELETE /devices/{device_id}',
      'POST /devices',
    ],
  },
  {
    action: 'device:annotate',
    policy: 'operator',
    note: "local tags and maintenance-state override beside a provider-sourced device's own data.",
    routes: ['PATCH /devices/{device_id}/overlay'],
  },
  {
    action: 'device:purge',
    policy: 'admin',
    routes: ['DELETE /devices/{device_id}/permanent', 'POST /devices/bulk/permanent'],
  },
  {
    action: 'inventory_object:view',
    policy: 'operator',
    routes: [
      'GET /inventory/objects/{object_type}/resolve',
      'GET /inventory/object-types/counts',
      'GET /inventory/provider-types',
      'GET /inventory/object-types',
      'GET /inventory/objects/{object_type}/{object_id}',
      'GET /inventory/objects/{object_type}',
    ],
  },
  {
    action: 'inventory_provider:view',
    policy: 'admin',
    note: 'Credentials redacted.',
    routes: [
      'GET /inventory/providers/{provider_id}/sync-history',
      'GET /inventory/provider-inventory',
      'GET /inventory/providers',
      'GET /inventory/providers/{provider_id}',
    ],
  },
  {
    action: 'inventory_provider:manage',
    policy: 'admin',
    routes: [
      'POST /inventory/providers/{provider_id}/discover',
      'POST /inventory/providers/{provider_id}/restore',
      'POST /inventory/providers',
      'PATCH /inventory/providers/{provider_id}',
      'DELETE /inventory/providers/{provider_id}',
    ],
  },
  {
    action: 'inventory_provider:test',
    policy: 'admin',
    routes: ['POST /inventory/providers/{provider_id}/test-connection'],
  },
  {
    action: 'inventory_provider:sync',
    policy: 'admin',
    note: 'creates, updates, restores, marks stale the imported devices, sites and objects.',
    routes: ['POST /inventory/providers/{provider_id}/sync'],
  },
  {
    action: 'inventory_provider:purge',
    policy: 'admin',
    note: 'irreversible hard delete of everything imported.',
    routes: ['POST /inventory/providers/{provider_id}/purge-inventory', 'DELETE /inventory/providers/{provider_id}/permanent'],
  },
  {
    action: 'worker:view',
    policy: 'viewer',
    routes: ['GET /workers'],
  },
];
