import type { Knex } from 'knex';

/**
 * Workers as their heartbeats describe them (`GET /workers`). `id` is the worker's own name, stable
 * across its restarts; `labels` and `handlers` say what it can run, `capacity` how many runs at once.
 * A worker that stops heartbeating is shown offline (by `last_seen_at`); `draining` is set by a worker
 * that is shutting down and takes no new runs.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('workers', (t) => {
    t.string('id', 255).primary();
    t.string('hostname', 255);
    t.string('version', 64);
    t.jsonb('labels_json').notNullable().defaultTo(knex.raw(`'{}'::jsonb`));
    t.jsonb('handlers_json').notNullable().defaultTo(knex.raw(`'[]'::jsonb`));
    t.integer('capacity').notNullable().defaultTo(1);
    t.integer('running').notNullable().defaultTo(0);
    t.boolean('draining').notNullable().defaultTo(false);
    t.timestamp('first_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_seen_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.check('capacity >= 0', [], 'workers_capacity_not_negative');
    t.check('running >= 0', [], 'workers_running_not_negative');
    t.check(`jsonb_typeof(labels_json) = 'object'`, [], 'workers_labels_object');
    t.check(`jsonb_typeof(handlers_json) = 'array'`, [], 'workers_handlers_array');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('workers');
}
