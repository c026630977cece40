import type { ActionDefinition } from '../types.js';

/** Catalogue section "dashboards, administration". */
export const administrationActions: readonly ActionDefinition[] = [
  {
    action: 'dashboard:view',
    policy: 'viewer',
    routes: ['GET /dashboard/stats'],
  },
  {
    action: 'dashboard:org_health',
    policy: 'admin',
    routes: ['GET /dashboard/org-health'],
  },
  {
    action: 'api_token:manage',
    policy: 'admin',
    routes: ['DELETE /api-tokens/by-user/{username}', 'DELETE /api-tokens/{token_id}', 'POST /api-tokens', 'GET /api-tokens'],
  },
  {
    action: 'audit_log:view',
    policy: 'admin',
    routes: [
      'GET /audit-logs/filter-options',
      'GET /audit-logs/stats',
      'GET /audit-logs/resource/{resource_type}/{resource_id}',
      'GET /audit-logs/{audit_id}',
      'GET /audit-logs',
    ],
  },
  {
    action: 'audit_log:cleanup',
    policy: 'admin',
    routes: ['POST /audit-logs/cleanup'],
  },
  {
    action: 'permission:manage',
    policy: 'admin',
    routes: [
      'PUT /settings/permissions/actions/override',
      'DELETE /settings/permissions/actions/override',
      'PUT /settings/permissions/override',
      'DELETE /settings/permissions/override',
      'GET /settings/permissions/actions',
      'GET /settings/permissions',
    ],
  },
  {
    action: 'plugin:view',
    policy: 'operator',
    routes: ['GET /inventory/plugins', 'GET /settings/plugins'],
  },
  {
    action: 'environment_variable:view',
    policy: 'admin',
    routes: ['GET /settings/environment-variables'],
  },
  {
    action: 'maintenance_job:view',
    policy: 'admin',
    routes: ['GET /settings/maintenance/jobs'],
  },
  {
    action: 'platform:health',
    policy: 'admin',
    routes: ['GET /platform/health'],
  },
];
