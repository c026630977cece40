import type { Knex } from 'knex';
import type { SqlPart } from '../db/sql-part.js';

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

/**
 * The entry as a data-modifying common table expression of a larger statement, written once per row of
 * `source` (so only if that row was written): run admission's `run.started`, the webhook's
 * `webhook.triggered`. The SQL depends on `source` alone, so a statement built from it can be prepared.
 */
export function auditInsertFrom(source: string, row: AuditRow): SqlPart {
  return {
    sql: `INSERT INTO audit_logs (org_id, event_type, actor_sub, actor_username, resource_type, resource_id, action, outcome,
        details_json, client_ip, user_agent)
      SELECT ?::uuid, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ? FROM ${source}`,
    bindings: [
      row.org_id, row.event_type, row.actor_sub, row.actor_username, row.resource_type, row.resource_id,
      row.action, row.outcome, JSON.stringify(row.details_json), row.client_ip, row.user_agent,
    ],
  };
}
