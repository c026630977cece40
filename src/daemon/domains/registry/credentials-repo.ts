import type { Knex } from 'knex';
import { pageWithTotal } from '../../db/page.js';
import { Table } from '../../db/table.js';
import { TransactionalRepo } from '../../db/transactional-repo.js';
import type { HeldFacts } from '../run-callbacks/fence.js';

export interface RegistryCredentialRow {
  readonly id: string;
  readonly org_id: string;
  readonly registry: string;
  readonly url: string;
  readonly username: string;
  readonly password_ref: string;
  readonly description: string | null;
  readonly last_tested_at: Date | null;
  readonly last_test_ok: boolean | null;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly created_by: string | null;
  readonly updated_by: string | null;
}

const COLUMNS = [
  'id',
  'org_id',
  'registry',
  'url',
  'username',
  'password_ref',
  'description',
  'last_tested_at',
  'last_test_ok',
  'created_at',
  'updated_at',
  'created_by',
  'updated_by',
] as const;

const CREDENTIALS = new Table<RegistryCredentialRow>('registry_credentials', COLUMNS);

/** What a worker's read of a run's credentials needs of the run: the fencing facts and its organization. */
export interface CredentialRunFacts extends HeldFacts {
  readonly id: string;
  readonly org_id: string;
}

export interface CredentialFilter {
  readonly registry?: string | undefined;
  readonly q?: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

/** `registry_credentials`: an organization's logins to upstream registries. */
export class RegistryCredentialsRepo extends TransactionalRepo {
  constructor(knex: Knex) {
    super(knex);
  }

  async list(orgId: string, filter: CredentialFilter): Promise<{ rows: RegistryCredentialRow[]; total: number }> {
    const query = this.knex('registry_credentials').where('org_id', orgId);
    if (filter.registry !== undefined) query.where('registry', filter.registry);
    if (filter.q !== undefined) query.whereRaw('strpos(registry, ?) > 0', [filter.q]);
    return pageWithTotal<RegistryCredentialRow>(this.knex, query, COLUMNS, [{ column: 'registry', order: 'asc' }], filter);
  }

  async find(orgId: string, id: string, trx: Knex = this.knex): Promise<RegistryCredentialRow | undefined> {
    return trx('registry_credentials').select(COLUMNS).where({ org_id: orgId, id }).first();
  }

  async lock(trx: Knex.Transaction, orgId: string, id: string): Promise<RegistryCredentialRow | undefined> {
    return trx('registry_credentials').select(COLUMNS).where({ org_id: orgId, id }).forUpdate().first();
  }

  /** Every credential of the organization, for a run's step (`GET /internal/runs/{run_id}/registry-credentials`). */
  async allOf(orgId: string): Promise<RegistryCredentialRow[]> {
    return this.knex('registry_credentials').select(COLUMNS).where('org_id', orgId).orderBy('registry');
  }

  /** The run a worker names, unlocked (a read changes nothing the fence guards). */
  async run(id: string): Promise<CredentialRunFacts | undefined> {
    return this.knex('runs').where({ id }).first('id', 'org_id', 'status', 'worker_id', 'attempt', 'lease_expires_at');
  }

  async insert(trx: Knex.Transaction, row: Record<string, unknown>): Promise<RegistryCredentialRow> {
    return CREDENTIALS.insert(trx, row);
  }

  async update(trx: Knex.Transaction, id: string, change: Record<string, unknown>): Promise<RegistryCredentialRow> {
    return CREDENTIALS.update(trx, id, change);
  }

  async remove(trx: Knex.Transaction, id: string): Promise<void> {
    await trx('registry_credentials').where('id', id).delete();
  }

  /** A test's result; not a change of the credential (its `updated_*` stay). */
  async recordTest(orgId: string, id: string, ok: boolean, at: Date): Promise<void> {
    await this.knex('registry_credentials').where({ org_id: orgId, id }).update({ last_tested_at: at, last_test_ok: ok });
  }
}
