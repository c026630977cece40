import type { Knex } from 'knex';

/**
 * The writes of login-time provisioning, each guarded so it never touches a `manual` row. What sync
 * reads (matching mappings from the mapping index, current memberships from the IdP mappings
 * repository) are the same reads the preview makes, so a preview and the next login agree.
 */
export class LoginSyncRepo {
  constructor(private readonly knex: Knex) {}

  async addIdp(trx: Knex.Transaction, userId: string, orgId: string, role: string): Promise<boolean> {
    const rows = await trx('org_memberships')
      .insert({ user_id: userId, org_id: orgId, role, source: 'idp' })
      .onConflict(['user_id', 'org_id'])
      .ignore()
      .returning('id');
    return rows.length > 0;
  }

  async setIdpRole(trx: Knex.Transaction, userId: string, orgId: string, role: string): Promise<boolean> {
    return (
      (await trx('org_memberships').where({ user_id: userId, org_id: orgId, source: 'idp' }).update({ role, updated_at: trx.fn.now() })) > 0
    );
  }

  async removeIdp(trx: Knex.Transaction, userId: string, orgId: string): Promise<boolean> {
    const rows = await trx('org_memberships').where({ user_id: userId, org_id: orgId, source: 'idp' }).delete().returning('id');
    return rows.length > 0;
  }

  async addManual(trx: Knex.Transaction, userId: string, orgId: string, role: string): Promise<boolean> {
    const rows = await trx('org_memberships')
      .insert({ user_id: userId, org_id: orgId, role, source: 'manual' })
      .onConflict(['user_id', 'org_id'])
      .ignore()
      .returning('id');
    return rows.length > 0;
  }

  async hasAnyMembership(userId: string): Promise<boolean> {
    return (await this.knex('org_memberships').where({ user_id: userId }).first('id')) !== undefined;
  }

  async defaultOrgId(): Promise<string | undefined> {
    return (await this.knex('organizations').where({ is_default: true, is_active: true }).first('id'))?.id;
  }
}
