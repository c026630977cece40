import knexFactory from 'knex';

/**
 * A PostgreSQL server for the tests that need one whichever backend the suite runs on (several
 * instances on one database, a database that goes away): the suite's own server, or the local default.
 */
export const POSTGRES_SERVER_URL = process.env.SVC_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test';

export async function postgresAnswers(url = POSTGRES_SERVER_URL): Promise<boolean> {
  const probe = knexFactory({
    client: 'pg',
    connection: { connectionString: url, connectionTimeoutMillis: 2000 },
    pool: { min: 0, max: 1 },
  });
  try {
    await probe.raw('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await probe.destroy();
  }
}
