import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/daemon/db/database.js';
import { PreparedStatement, queryPrepared } from '../src/daemon/db/prepared.js';
import { BACKEND } from './helpers/backend.js';
import { freshDatabase } from './helpers/database.js';

/**
 * A named prepared statement sent straight to pg (on PostgreSQL, outside a transaction) or through knex
 * (PGlite, a transaction): the same rows either way, reported to knex's `query` observers, and a text
 * that cannot be positioned safely refused before anything is sent.
 */
let fresh: Awaited<ReturnType<typeof freshDatabase>>;
let db: Database;

beforeAll(async () => {
  fresh = await freshDatabase();
  db = fresh.db;
});
afterAll(async () => {
  await fresh?.close();
});

/** What knex's `query` observers saw while `work` ran. */
async function observed(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (query: { sql: string }) => seen.push(query.sql);
  db.knex.on('query', listener);
  try {
    await work();
  } finally {
    db.knex.off('query', listener);
  }
  return seen;
}

describe('queryPrepared', () => {
  it('answers the rows, binding arrays, JSON text and nulls, and the text is made once per name', async () => {
    let made = 0;
    const sql = () => {
      made += 1;
      return "SELECT ?::int + 1 AS n, cardinality(?::uuid[]) AS ids, (?::jsonb)->>'a' AS a, ?::text IS NULL AS none";
    };
    const bindings = [
      41,
      ['00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002'],
      JSON.stringify({ a: 'b' }),
      null,
    ];
    const statement = new PreparedStatement('svc_test_query_prepared', sql);
    for (let i = 0; i < 3; i += 1) {
      const rows = await queryPrepared<{ n: number; ids: number; a: string; none: boolean }>(db.knex, statement, bindings);
      expect(rows).toEqual([{ n: 42, ids: 2, a: 'b', none: true }]);
    }
    // The statement keeps its text (and, straight to pg, its `$n` form), whichever way it is sent.
    expect(made).toBe(1);
  });

  it('reports the statement to knex query observers', async () => {
    const seen = await observed(() =>
      queryPrepared(db.knex, new PreparedStatement('svc_test_query_observed', () => 'SELECT ?::int AS n'), [7]),
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(BACKEND === 'postgres' ? /^SELECT \$1::int AS n$/ : /SELECT .*::int AS n/);
  });

  it.runIf(BACKEND === 'postgres')(
    "sends the text knex would send under the same name (a transaction takes knex's path, maybe on the same connection)",
    async () => {
      const sql = "SELECT ?::int AS n, cardinality(?::uuid[]) AS ids, (?::jsonb)->>'a' AS a";
      const bindings = [1, ['00000000-0000-4000-8000-000000000001'], '{"a":"b"}'];
      const seen = await observed(() => queryPrepared(db.knex, new PreparedStatement('svc_test_query_same_text', () => sql), bindings));
      expect(seen).toEqual([db.knex.raw(sql, bindings).toSQL().toNative().sql]);
    },
  );

  it('runs inside a transaction through it', async () => {
    await db.knex.transaction(async (trx) => {
      await trx.raw('CREATE TEMP TABLE query_prepared_probe (n int) ON COMMIT DROP');
      await trx.raw('INSERT INTO query_prepared_probe VALUES (5)');
      const rows = await queryPrepared<{ n: number }>(
        trx,
        new PreparedStatement('svc_test_query_in_transaction', () => 'SELECT n + ?::int AS n FROM query_prepared_probe'),
        [1],
      );
      expect(rows).toEqual([{ n: 6 }]);
    });
  });

  it.runIf(BACKEND === 'postgres')(
    'refuses a text it cannot position: an identifier placeholder, or a count that does not match',
    async () => {
      await expect(
        queryPrepared(db.knex, new PreparedStatement('svc_test_query_identifier', () => 'SELECT ?? FROM organizations WHERE id = ?'), [
          'id',
          'x',
        ]),
      ).rejects.toThrow(TypeError);
      await expect(
        queryPrepared(db.knex, new PreparedStatement('svc_test_query_count', () => 'SELECT ?::int AS n'), [1, 2]),
      ).rejects.toThrow(TypeError);
    },
  );

  it('answers an error of the database with its SQLSTATE', async () => {
    await expect(
      queryPrepared(db.knex, new PreparedStatement('svc_test_query_error', () => 'SELECT 1 / ?::int AS n'), [0]),
    ).rejects.toMatchObject({
      code: '22012',
    });
  });
});
