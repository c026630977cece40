import type { Knex } from 'knex';

/** `storage` may be `repository`, which names its repository; the other stores name none. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE run_artifacts DROP CONSTRAINT run_artifacts_storage_known');
  await knex.raw(
    `ALTER TABLE run_artifacts ADD CONSTRAINT run_artifacts_storage_known CHECK ` +
      `((storage IN ('file', 'database') AND repository_id IS NULL) OR (storage = 'repository' AND repository_id IS NOT NULL))`,
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE run_artifacts DROP CONSTRAINT run_artifacts_storage_known');
  await knex.raw(`ALTER TABLE run_artifacts ADD CONSTRAINT run_artifacts_storage_known CHECK (storage IN ('file', 'database'))`);
}
