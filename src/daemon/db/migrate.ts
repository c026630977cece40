import type { Knex } from 'knex';
import { MIGRATIONS, type Migration } from '../../../migrations/index.js';

/**
 * Migrations are imported, not discovered on disk, so the same list runs from TypeScript sources (tests)
 * and from the build, and a migration missing from the list fails a test instead of being skipped.
 */
class ListedMigrations implements Knex.MigrationSource<Migration> {
  async getMigrations(): Promise<Migration[]> {
    return [...MIGRATIONS];
  }
  getMigrationName(migration: Migration): string {
    return migration.name;
  }
  async getMigration(migration: Migration): Promise<Knex.Migration> {
    return migration;
  }
}

export const MIGRATION_TABLE = 'knex_migrations';

/** Brings the schema to the latest version; returns the names of the migrations it ran. */
export async function migrateToLatest(knex: Knex): Promise<string[]> {
  const [, ran] = (await knex.migrate.latest({ migrationSource: new ListedMigrations(), tableName: MIGRATION_TABLE })) as [
    number,
    string[],
  ];
  return ran;
}

/** Undoes every migration (used by the reversibility test). */
export async function rollbackAll(knex: Knex): Promise<void> {
  await knex.migrate.rollback({ migrationSource: new ListedMigrations(), tableName: MIGRATION_TABLE }, true);
}
