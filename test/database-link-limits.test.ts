import { randomBytes } from 'node:crypto';
import knexFactory, { KnexTimeoutError } from 'knex';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/daemon/db/database.js';
import { isDatabaseUnavailable } from '../src/daemon/db/database-errors.js';
import { PreparedStatement, queryPrepared } from '../src/daemon/db/prepared.js';
import { createLogger } from '../src/daemon/logging/logger.js';
import { withDatabase } from './helpers/backend.js';
import { postgresAnswers, POSTGRES_SERVER_URL } from './helpers/postgres-server.js';

/** A server error as node-postgres makes it (pg-protocol's DatabaseError), with its SQLSTATE. */
function serverError(code: string, message = 'from the server'): Error {
  return Object.assign(new pg.DatabaseError(message, message.length, 'error'), { code });
}

describe('which database errors mean the link failed (503 database_unavailable)', () => {
  it.each([
    ['57P01 admin shutdown', serverError('57P01')],
    ['57P02 crash shutdown', serverError('57P02')],
    ['57P03 cannot connect now', serverError('57P03')],
    ['57014 statement timeout', serverError('57014')],
    ['53300 too many connections', serverError('53300')],
    ['25006 read-only transaction', serverError('25006')],
    ['08006 connection failure', serverError('08006')],
    ['08P01 protocol violation', serverError('08P01')],
    ['ECONNRESET', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    ['ECONNREFUSED', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })],
    ['ETIMEDOUT', Object.assign(new Error('connect ETIMEDOUT'), { code: 'ETIMEDOUT' })],
    ['EPIPE', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })],
    ['the acquire timeout', new KnexTimeoutError('Knex: Timeout acquiring a connection.')],
    ['a socket closed under a query', new Error('Connection terminated unexpectedly')],
    ['the same, as knex reports it', new Error('select 1 - Connection terminated unexpectedly')],
    ['the connect timeout', new Error('Connection terminated due to connection timeout')],
    ['the query timeout, as knex reports it', new Error('select "id" from "runs" - Query read timeout')],
    ['a client used after its connection failed', new Error('Client has encountered a connection error and is not queryable')],
    ['a link error as a cause', new Error('wrapped', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) })],
  ])('%s: unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['23505 unique violation', serverError('23505')],
    ['23503 foreign key violation', serverError('23503')],
    ['42601 syntax error', serverError('42601')],
    ['40P01 deadlock', serverError('40P01')],
    ['an error of the code', new TypeError('x is not a function')],
    ['a statement text naming the words', new Error('select \'Connection terminated\' - syntax error at or near "x"')],
    ['not an error', 'ECONNRESET'],
    ['nothing', null],
  ])('%s: not unavailable', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});

/**
 * The limits on one real session (PostgreSQL only: PGlite has no link and ignores them). Short limits
 * here so the statements that cross them are short too.
 */
const available = await postgresAnswers();
const database = `svc_limittest_${randomBytes(4).toString('hex')}`;
const admin = knexFactory({ client: 'pg', connection: POSTGRES_SERVER_URL, pool: { min: 0, max: 1 } });
let db: Database;

describe.skipIf(!available)('the database link limits on PostgreSQL', () => {
  beforeAll(async () => {
    await admin.raw(`CREATE DATABASE ${database}`);
    db = await openDatabase(
      {
        databaseUrl: withDatabase(POSTGRES_SERVER_URL, database),
        dataDir: '',
        databaseQueryTimeoutMs: 400,
        databaseStatementTimeoutMs: 200,
        databasePoolMax: 2,
      },
      createLogger('silent'),
    );
  });

  afterAll(async () => {
    await db?.close();
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.destroy();
  });

  const pid = async () => Number(((await db.knex.raw('select pg_backend_pid() as pid')) as { rows: { pid: number }[] }).rows[0]!.pid);

  it('the server cancels a statement past statement_timeout (57014) and the session serves on', async () => {
    const before = await pid();
    const refused = await db.knex.raw('select pg_sleep(1)').catch((error: unknown) => error);
    expect((refused as { code?: string }).code).toBe('57014');
    expect(isDatabaseUnavailable(refused)).toBe(true);
    expect(await pid()).toBe(before);
  });

  it('a statement that passes the query timeout unanswered fails it, and its connection is discarded, not reused', async () => {
    const before = await pid();
    // The server's limit lifted for this session alone, so only the client's can end the wait.
    await db.knex.raw('set statement_timeout = 0');
    const timedOut = await db.knex.raw('select pg_sleep(2)').catch((error: unknown) => error);
    expect(isDatabaseUnavailable(timedOut)).toBe(true);
    // Reused, the connection would still be busy with the sleep, and this would time out too.
    expect(await pid()).not.toBe(before);
  });

  it('the same through queryPrepared (the run admission path, straight to a pooled pg client)', async () => {
    const before = await pid();
    await db.knex.raw('set statement_timeout = 0');
    const timedOut = await queryPrepared(db.knex, new PreparedStatement('svc_test_sleep', () => 'select pg_sleep(?)'), [2]).catch(
      (error: unknown) => error,
    );
    expect(isDatabaseUnavailable(timedOut)).toBe(true);
    expect(await pid()).not.toBe(before);
  });

  it('migrations run without the statement limits', async () => {
    const slept = await db.withoutStatementLimits((knex) => knex.raw('select pg_sleep(0.6) as slept'));
    expect((slept as { rows: unknown[] }).rows).toHaveLength(1);
  });

  it('runs no more statements at once than SERVICE_DATABASE_POOL_MAX, however many wait', async () => {
    // Sessions running one of these sleeps (sessions discarded by the tests above may still be finishing theirs).
    const sleeping = async () =>
      Number(
        (
          (await admin.raw(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = ? AND query = 'select pg_sleep(0.15)'`, [
            database,
          ])) as {
            rows: { n: string }[];
          }
        ).rows[0]!.n,
      );
    let done = false;
    const busy = Promise.all(Array.from({ length: 6 }, () => db.knex.raw('select pg_sleep(0.15)'))).finally(() => (done = true));
    let most = 0;
    while (!done) most = Math.max(most, await sleeping());
    await busy;
    // Six at once with the default of ten.
    expect(most).toBe(2);
  });
});
