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

/** The columns `audit_logs` is written with, in order, and their SQL types. */
const ENTRY_COLUMNS = [
  ['org_id', 'uuid'],
  ['event_type', 'text'],
  ['actor_sub', 'text'],
  ['actor_username', 'text'],
  ['resource_type', 'text'],
  ['resource_id', 'text'],
  ['action', 'text'],
  ['outcome', 'text'],
  ['details_json', 'jsonb'],
  ['client_ip', 'text'],
  ['user_agent', 'text'],
] as const;

/**
 * An entry as columns of a statement's input rows (run admission's statement), each named with a prefix:
 * their names and SQL types in order, an entry's values appended to an input row in that order, and the
 * data-modifying statement writing one entry per row of a source (so only for the rows that are there).
 */
export interface AuditInput {
  readonly columns: readonly (readonly [name: string, type: string])[];
  push(into: unknown[], row: AuditRow): void;
  insertFrom(source: string): string;
}

export function auditInput(prefix: string): AuditInput {
  const names = ENTRY_COLUMNS.map(([column]) => `${prefix}${column}`);
  return {
    columns: ENTRY_COLUMNS.map(([, type], i) => [names[i]!, type] as const),
    push(into, row) {
      for (const [column] of ENTRY_COLUMNS) into.push(row[column]);
    },
    insertFrom: (source) => `INSERT INTO audit_logs (${ENTRY_COLUMNS.map(([column]) => column).join(', ')})
      SELECT ${names.join(', ')} FROM ${source}`,
  };
}
