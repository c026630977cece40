import type { Knex } from 'knex';

/**
 * Query options that make the statement a named prepared statement on PostgreSQL: parsed once per
 * connection and, after a few runs, planned once. For the statements of the hot paths (run admission,
 * webhook triggers), whose planning costs the database more than executing them (measured: about
 * 0.3–0.6 ms against 0.05–0.1 ms). The text under one name must never change; PGlite ignores the name.
 */
export function prepared(name: string): { name: string } {
  return { name };
}

/**
 * A named prepared statement whose text never changes: made when first needed, and its `$n` form (for pg
 * directly) made once, both kept by the statement itself.
 */
export class PreparedStatement {
  #text: string | undefined;
  #positioned: string | undefined;

  constructor(
    readonly name: string,
    private readonly makeText: () => string,
  ) {}

  /** The text with knex's `?` placeholders. */
  get text(): string {
    return (this.#text ??= this.makeText());
  }

  /** The text with `$1`, `$2`, … as pg takes it; `values` is how many the statement binds. */
  positioned(values: number): string {
    return (this.#positioned ??= positioned(this.text, values, this.name));
  }
}

/** The pooled pg client as knex hands it out: node-postgres's query, and knex's id for it. */
interface PgConnection {
  readonly __knexUid?: string;
  query(config: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * The rows of `statement` run as a named prepared statement. On PostgreSQL outside a transaction it goes
 * straight to a pooled pg client, with the statement's `$n` text: knex scans the whole text twice on every
 * call (binding replacement, then positioning), which for a statement carrying many run admissions cost
 * more than the daemon's other work on it. knex's `query` event still reports it (with the `$n` text). In
 * a transaction, and on PGlite, it is an ordinary knex query.
 */
export async function queryPrepared<Row>(
  db: Knex | Knex.Transaction,
  statement: PreparedStatement,
  bindings: readonly unknown[],
): Promise<Row[]> {
  const name = statement.name;
  if (db.isTransaction || db.client.config.client !== 'pg') {
    const { rows } = await db.raw(statement.text, bindings as Knex.RawBinding[]).options(prepared(name));
    return rows as Row[];
  }
  const text = statement.positioned(bindings.length);
  const connection = (await db.client.acquireConnection()) as PgConnection;
  try {
    db.emit('query', { method: 'raw', sql: text, bindings, options: { name }, __knexUid: connection.__knexUid });
    const { rows } = await connection.query({ name, text, values: bindings });
    return rows as Row[];
  } finally {
    await db.client.releaseConnection(connection);
  }
}

/** `?` placeholders as `$1`, `$2`, …; the text may hold no other `?` (knex's `??` identifiers, jsonb operators). */
function positioned(sql: string, expected: number, name: string): string {
  let count = 0;
  const text = sql.replace(/\?+/g, (marks) => {
    if (marks.length !== 1) throw new TypeError(`statement ${name}: "${marks}" is not a value placeholder`);
    count += 1;
    return `$${count}`;
  });
  if (count !== expected) throw new TypeError(`statement ${name}: ${count} placeholders for ${expected} values`);
  return text;
}
