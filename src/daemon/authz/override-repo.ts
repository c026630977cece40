import type { Knex } from 'knex';

export interface ActionOverrideRow {
  readonly action: string;
  readonly policy: string;
  readonly updated_by_sub: string | null;
  readonly updated_by_username: string | null;
  readonly updated_at: Date;
}

export interface RouteOverrideRow {
  readonly method: string;
  readonly path: string;
  readonly policy: string;
  readonly updated_by_sub: string | null;
  readonly updated_by_username: string | null;
  readonly updated_at: Date;
}

export interface Editor {
  readonly sub: string;
  readonly username: string;
}

/** The two override tables. Writes take the caller's transaction so the audit entry and notification commit with them. */
export class OverrideRepo {
  constructor(private readonly knex: Knex) {}

  async all(): Promise<{ actions: ActionOverrideRow[]; routes: RouteOverrideRow[] }> {
    const [actions, routes] = await Promise.all([
      this.knex('permission_action_overrides').select('action', 'policy', 'updated_by_sub', 'updated_by_username', 'updated_at'),
      this.knex('permission_overrides').select('method', 'path', 'policy', 'updated_by_sub', 'updated_by_username', 'updated_at'),
    ]);
    return { actions, routes };
  }

  async actionPolicy(trx: Knex.Transaction, action: string): Promise<string | undefined> {
    return (await trx('permission_action_overrides').where({ action }).forUpdate().first('policy'))?.policy;
  }

  async routePolicy(trx: Knex.Transaction, method: string, path: string): Promise<string | undefined> {
    return (await trx('permission_overrides').where({ method, path }).forUpdate().first('policy'))?.policy;
  }

  async upsertAction(trx: Knex.Transaction, action: string, policy: string, editor: Editor): Promise<void> {
    await trx('permission_action_overrides')
      .insert({ action, policy, updated_by_sub: editor.sub, updated_by_username: editor.username })
      .onConflict('action')
      .merge({ policy, updated_by_sub: editor.sub, updated_by_username: editor.username, updated_at: trx.fn.now() });
  }

  async upsertRoute(trx: Knex.Transaction, method: string, path: string, policy: string, editor: Editor): Promise<void> {
    await trx('permission_overrides')
      .insert({ method, path, policy, updated_by_sub: editor.sub, updated_by_username: editor.username })
      .onConflict(['method', 'path'])
      .merge({ policy, updated_by_sub: editor.sub, updated_by_username: editor.username, updated_at: trx.fn.now() });
  }

  async deleteAction(trx: Knex.Transaction, action: string): Promise<void> {
    await trx('permission_action_overrides').where({ action }).delete();
  }

  async deleteRoute(trx: Knex.Transaction, method: string, path: string): Promise<void> {
    await trx('permission_overrides').where({ method, path }).delete();
  }
}
