import type { ActionDefinition } from '../types.js';

/** Catalogue section "org". */
export const orgActions: readonly ActionDefinition[] = [
  {
    action: 'org:list',
    policy: 'authenticated',
    note: 'filtered per caller.',
    routes: ['GET /orgs'],
  },
  {
    action: 'org:view',
    policy: 'org_member',
    routes: ['GET /orgs/{org_ref}/members', 'GET /orgs/{org_ref}'],
  },
  {
    action: 'org:manage',
    policy: 'admin',
    note: 'Create, rename, deactivate, delete, designate the shared organization.',
    routes: ['DELETE /orgs/{org_ref}', 'PATCH /orgs/{org_ref}', 'POST /orgs'],
  },
  {
    action: 'org_member:manage',
    policy: 'org_admin',
    routes: [
      'GET /orgs/{org_ref}/addable-users',
      'POST /orgs/{org_ref}/members',
      'DELETE /orgs/{org_ref}/members/{user_id}',
      'PATCH /orgs/{org_ref}/members/{user_id}',
    ],
  },
  {
    action: 'org_idp_mapping:manage',
    policy: 'org_admin',
    routes: [
      'GET /orgs/{org_ref}/idp-mappings',
      'POST /orgs/{org_ref}/idp-mappings',
      'DELETE /orgs/{org_ref}/idp-mappings/{mapping_id}',
      'PATCH /orgs/{org_ref}/idp-mappings/{mapping_id}',
    ],
  },
];
