import type { Knex } from 'knex';

/**
 * Managed IaC states (a Terraform/OpenTofu `http` backend), one per (organization, name), made by the
 * first lock, write or import. The lock is the holder's lock info as Terraform sent it (`lock_json`), its
 * id apart for the checks, and who took it (a run token's run and step, or a user).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('iac_states', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('name', 128).notNullable();
    t.integer('latest_version').notNullable().defaultTo(0);
    t.string('lock_id', 255);
    t.jsonb('lock_json');
    t.timestamp('locked_at', { useTz: true });
    t.string('locked_by', 255);
    t.uuid('lock_run_id');
    t.string('lock_step_id', 255);
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.string('created_by', 255);
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['org_id', 'name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('iac_states');
}
