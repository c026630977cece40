import type { Knex } from 'knex';

// Placeholder: filled in by the change that builds this table.
export async function up(_knex: Knex): Promise<void> {}

export async function down(_knex: Knex): Promise<void> {}
