import type { Knex } from 'knex';
import * as m0 from './20261121100000_create_users.js';
import * as m1 from './20261121100100_create_organizations.js';
import * as m2 from './20261121100200_create_org_memberships.js';
import * as m3 from './20261121100300_create_audit_logs.js';
import * as m4 from './20261121100400_create_org_idp_mappings.js';
import * as m5 from './20261121100500_create_permission_action_overrides.js';
import * as m6 from './20261121100600_create_permission_overrides.js';
import * as m7 from './20261121100700_create_personal_access_tokens.js';
import * as m8 from './20261121100800_create_run_tokens.js';
import * as m9 from './20261121100900_create_stream_tickets.js';
import * as m10 from './20261121101000_seed_default_organization.js';
import * as m11 from './20261121110000_add_organizations_is_shared.js';

export interface Migration extends Knex.Migration {
  readonly name: string;
}

/** Every migration, oldest first. A test checks this list against the files in this folder. */
export const MIGRATIONS: readonly Migration[] = [
  { name: '20261121100000_create_users', up: m0.up, down: m0.down },
  { name: '20261121100100_create_organizations', up: m1.up, down: m1.down },
  { name: '20261121100200_create_org_memberships', up: m2.up, down: m2.down },
  { name: '20261121100300_create_audit_logs', up: m3.up, down: m3.down },
  { name: '20261121100400_create_org_idp_mappings', up: m4.up, down: m4.down },
  { name: '20261121100500_create_permission_action_overrides', up: m5.up, down: m5.down },
  { name: '20261121100600_create_permission_overrides', up: m6.up, down: m6.down },
  { name: '20261121100700_create_personal_access_tokens', up: m7.up, down: m7.down },
  { name: '20261121100800_create_run_tokens', up: m8.up, down: m8.down },
  { name: '20261121100900_create_stream_tickets', up: m9.up, down: m9.down },
  { name: '20261121101000_seed_default_organization', up: m10.up, down: m10.down },
  { name: '20261121110000_add_organizations_is_shared', up: m11.up, down: m11.down },
];
