import type { ActionDefinition } from '../types.js';

/** Catalogue section "secrets, variables, state". */
export const secretsVariablesStateActions: readonly ActionDefinition[] = [
  {
    action: 'secret:view',
    policy: 'viewer',
    note: 'Values never returned; reading performs a live read to list key names.',
    routes: ['GET /secrets/providers', 'GET /secrets/{secret_id}', 'GET /secrets'],
  },
  {
    action: 'secret:discover',
    policy: 'operator',
    note: 'names of secrets in a backend not created through the service.',
    routes: ['GET /secrets/discovered'],
  },
  {
    action: 'secret:manage',
    policy: 'admin',
    note: 'Values are written to the external backend; deletion also removes them there; no restore.',
    routes: ['POST /secrets/{secret_id}/duplicate', 'PATCH /secrets/{secret_id}', 'DELETE /secrets/{secret_id}', 'POST /secrets'],
  },
  {
    action: 'iac_state:view',
    policy: 'viewer',
    note: 'Names, versions, sizes, lock holder; never state documents.',
    routes: ['GET /iac-states/{name}/versions', 'GET /iac-states/{name}', 'GET /iac-states'],
  },
  {
    action: 'iac_state:read',
    policy: 'operator',
    routes: ['GET /iac-states/{name}/versions/{version}/content', 'GET /iac-states/{name}/state'],
  },
  {
    action: 'iac_state:write',
    policy: 'operator',
    note: "Forcing another holder's lock also needs `iac_state:manage`.",
    routes: [
      'POST /iac-states/{name}/rollback',
      'POST /iac-states/{name}/import',
      'POST /iac-states/{name}/state',
      'DELETE /iac-states/{name}/lock',
      'POST /iac-states/{name}/lock',
    ],
  },
  {
    action: 'iac_state:manage',
    policy: 'admin',
    note: 'all versions; no restore.',
    routes: ['POST /iac-states/{name}/force-unlock', 'DELETE /iac-states/{name}'],
  },
  {
    action: 'secret_backend:view',
    policy: 'viewer',
    routes: ['GET /settings/secret-backend-types', 'GET /settings/secrets-backends', 'GET /settings/secrets-backends/{backend_id}'],
  },
  {
    action: 'secret_backend:manage',
    policy: 'admin',
    routes: [
      'POST /settings/secrets-backends',
      'PATCH /settings/secrets-backends/{backend_id}',
      'DELETE /settings/secrets-backends/{backend_id}',
    ],
  },
  {
    action: 'secret_backend:test',
    policy: 'admin',
    routes: ['POST /settings/secrets-backends/{backend_id}/test'],
  },
  {
    action: 'secret_backend:browse',
    policy: 'admin',
    note: 'names only.',
    routes: ['GET /settings/secrets-backends/{backend_id}/items'],
  },
  {
    action: 'variable:view',
    policy: 'viewer',
    routes: ['GET /variables/{variable_id}', 'GET /variables'],
  },
  {
    action: 'variable:manage',
    policy: 'admin',
    routes: [
      'POST /variables/{variable_id}/restore',
      'PATCH /variables/{variable_id}',
      'DELETE /variables/{variable_id}',
      'POST /variables',
    ],
  },
  {
    action: 'variable:purge',
    policy: 'admin',
    routes: ['DELETE /variables/{variable_id}/permanent'],
  },
  {
    action: 'variable_context:view',
    policy: 'viewer',
    note: 'Editor support: never values.',
    routes: ['POST /variable-contexts/validate', 'GET /variable-contexts', 'POST /variable-contexts'],
  },
];
