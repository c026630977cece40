import type { Knex } from 'knex';

/** The columns of an audit entry that are the same whether written, read, or sent to a client. */
export interface AuditFields {
  readonly org_id: string | null;
  readonly event_type: string;
  readonly actor_sub: string | null;
  readonly actor_username: string | null;
  readonly resource_type: string | null;
  readonly resource_id: string | null;
  readonly action: string | null;
  readonly outcome: string | null;
  readonly client_ip: string | null;
  readonly user_agent: string | null;
}

export interface AuditRow extends AuditFields {
  readonly details_json: Record<string, unknown>;
}

export class AuditRepo {
  constructor(private readonly knex: Knex) {}

  async insert(row: AuditRow, trx: Knex | Knex.Transaction = this.knex): Promise<string> {
    const [inserted] = await trx('audit_logs')
      .insert({ ...row, details_json: JSON.stringify(row.details_json) })
      .returning('id');
    return (inserted as { id: string }).id;
  }
}
