import type { ActionDefinition } from '../types.js';

/** Catalogue section "platform sync and configuration exchange". */
export const platformSyncActions: readonly ActionDefinition[] = [
  {
    action: 'platform_sync:view',
    policy: 'admin',
    routes: [
      'GET /platform-sync/profiles/{profile_id}/destructive-authorizations',
      'GET /platform-sync/profiles/{profile_id}/drift',
      'GET /platform-sync/profiles/{profile_id}/runs',
      'GET /platform-sync/profiles',
      'GET /platform-sync/plans/{plan_id}/families/{family}',
      'GET /platform-sync/profiles/{profile_id}',
      'GET /platform-sync/plans/{plan_id}',
      'GET /platform-sync/runs/{run_id}',
    ],
  },
  {
    action: 'platform_sync:manage',
    policy: 'admin',
    routes: ['POST /platform-sync/profiles', 'PATCH /platform-sync/profiles/{profile_id}', 'DELETE /platform-sync/profiles/{profile_id}'],
  },
  {
    action: 'platform_sync:execute',
    policy: 'admin',
    routes: [
      'POST /platform-sync/profiles/{profile_id}/conflicts/{change_id}/resolve',
      'POST /platform-sync/profiles/{profile_id}/export',
      'POST /platform-sync/profiles/{profile_id}/apply',
      'POST /platform-sync/profiles/{profile_id}/plan',
    ],
  },
  {
    action: 'platform_sync:authorize_destructive',
    policy: 'admin',
    routes: [
      'POST /platform-sync/profiles/{profile_id}/destructive-authorizations/{authorization_id}/revoke',
      'POST /platform-sync/profiles/{profile_id}/destructive-authorizations',
    ],
  },
  {
    action: 'config_exchange:view',
    policy: 'admin',
    routes: [
      'GET /config-exchange/resource-families',
      'GET /config-exchange/projection',
      'GET /config-exchange/schema',
      'GET /config-exchange/operations/{correlation_id}',
    ],
  },
  {
    action: 'config_exchange:execute',
    policy: 'admin',
    note: 'export the whole configuration as YAML without secret values; plan or apply a bundle across all families, including secrets and permission overrides.',
    routes: ['POST /config-exchange/operations/{correlation_id}/cancel', 'POST /config-exchange/operations'],
  },
];
