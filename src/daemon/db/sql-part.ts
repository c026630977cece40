import type { Knex } from 'knex';

/** One part of a statement: SQL with `?` placeholders and their values, in order. */
export interface SqlPart {
  readonly sql: string;
  readonly bindings: readonly Knex.Value[];
}
