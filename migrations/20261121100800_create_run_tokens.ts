import type { Knex } from 'knex';

/**
 * Run-scoped tokens (`svc_run_…`) minted for one step of a run: infrastructure-as-code state access
 * for one named state, or registry access. Only a digest is stored. `run_id` gains its foreign key
 * when the runs table exists.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('run_tokens', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    t.uuid('run_id').notNullable().index();
    t.string('step_id', 255).notNullable();
    t.enu('kind', ['iac_state', 'registry']).notNullable();
    t.uuid('org_id').notNullable().references('id').inTable('organizations').onDelete('CASCADE');
    t.string('scope', 255).notNullable();
    t.string('state_name', 255);
    t.string('token_digest', 64).notNullable().unique();
    t.timestamp('expires_at', { useTz: true }).notNullable();
    t.timestamp('revoked_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('run_tokens');
}
