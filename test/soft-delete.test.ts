import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../src/daemon/db/database.js';
import { cleared, SoftDeleteTable } from '../src/daemon/db/soft-delete.js';
import { freshDatabase } from './helpers/database.js';
import { queriesCounted } from './helpers/query-count.js';
import { seedOrg } from './helpers/seed.js';

/**
 * What every soft-deletable resource means by deleted, restored and purged (db/soft-delete.ts), on the
 * `sites` table: the route tests of each resource show the same through the API.
 */
interface Row {
  readonly id: string;
  readonly org_id: string;
  readonly name: string;
  readonly parent_id: string | null;
  readonly deleted_at: Date | null;
  readonly deleted_by: string | null;
  readonly updated_by: string | null;
}

const SITES = new SoftDeleteTable<Row>('sites', ['id', 'org_id', 'name', 'parent_id', 'deleted_at', 'deleted_by', 'updated_by']);

let db: Database;
let close: () => Promise<void>;
let own: string;
let shared: string;
beforeAll(async () => {
  ({ db, close } = await freshDatabase());
  own = await seedOrg(db.knex, 'soft-own');
  shared = await seedOrg(db.knex, 'soft-shared');
});
afterAll(() => close?.());
beforeEach(async () => {
  await db.knex('sites').delete();
});

async function site(orgId: string, name: string, parentId: string | null = null): Promise<string> {
  const [row] = await db.knex('sites').insert({ org_id: orgId, name, parent_id: parentId }).returning('id');
  return (row as { id: string }).id;
}

async function names(query: PromiseLike<{ name: string }[]>): Promise<string[]> {
  return (await query).map((row) => row.name).sort();
}

describe('a soft-deletable table', () => {
  it('marks rows deleted by someone, and restoring clears the mark and records who brought them back', async () => {
    const a = await site(own, 'a');
    const b = await site(own, 'b');
    const marked = await db.knex.transaction((trx) => SITES.markDeleted(trx, [a, b], 'alice'));
    expect(marked.map((row) => [row.deleted_by, row.deleted_at !== null, row.updated_by])).toEqual([
      ['alice', true, null],
      ['alice', true, null],
    ]);
    expect(await names(SITES.live(db.knex).select('name'))).toEqual([]);
    const [restored] = await db.knex.transaction((trx) => SITES.restore(trx, [a], 'bob'));
    expect(restored).toMatchObject({ id: a, deleted_at: null, deleted_by: null, updated_by: 'bob' });
    expect(await names(SITES.live(db.knex).select('name'))).toEqual(['a']);
  });

  it('lets a restore drop a link on the rows named, in the same statement', async () => {
    const parent = await site(own, 'parent');
    const kept = await site(own, 'kept', parent);
    const detached = await site(own, 'detached', parent);
    await SITES.markDeleted(db.knex, [kept, detached], null);
    const rows = await db.knex.transaction((trx) =>
      SITES.restore(trx, [kept, detached], null, cleared(trx, 'parent_id', new Set([detached]))),
    );
    expect(Object.fromEntries(rows.map((row) => [row.name, row.parent_id]))).toEqual({ kept: parent, detached: null });
  });

  it('lists live rows of every readable organization, and deleted ones only of the active organization when asked', async () => {
    await SITES.markDeleted(db.knex, [await site(own, 'own-deleted'), await site(shared, 'shared-deleted')], null);
    await site(own, 'own-live');
    await site(shared, 'shared-live');
    const scope = { orgId: own, orgIds: [own, shared] };
    expect(await names(SITES.visible(db.knex, { ...scope, includeDeleted: false }).select('name'))).toEqual(['own-live', 'shared-live']);
    expect(await names(SITES.visible(db.knex, { ...scope, includeDeleted: true }).select('name'))).toEqual([
      'own-deleted',
      'own-live',
      'shared-live',
    ]);
  });

  it('purges live and deleted rows alike', async () => {
    const live = await site(own, 'live');
    const deleted = await site(own, 'deleted');
    await SITES.markDeleted(db.knex, [deleted], null);
    await SITES.purge(db.knex, [live, deleted]);
    expect(Number((await db.knex('sites').count<{ n: string | number }[]>('* as n'))[0]!.n)).toBe(0);
  });

  it('sends no statement for no ids', async () => {
    const sent = await queriesCounted(
      db.knex,
      () => true,
      async () => {
        expect(await SITES.markDeleted(db.knex, [], null)).toEqual([]);
        expect(await SITES.restore(db.knex, [], null)).toEqual([]);
        await SITES.purge(db.knex, []);
      },
    );
    expect(sent).toBe(0);
  });
});
