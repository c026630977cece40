import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/daemon/db/database.js';
import { DeviceDirectory, providerRefKey } from '../src/daemon/domains/inventory/device-directory.js';
import { freshDatabase } from './helpers/database.js';
import { seedOrg } from './helpers/seed.js';

let db: Database;
let close: () => Promise<void>;
let directory: DeviceDirectory;
const orgs: Record<string, string> = {};
const ids: Record<string, string> = {};

async function device(org: string, name: string, extra: Record<string, unknown> = {}): Promise<string> {
  const [row] = await db
    .knex('devices')
    .insert({ org_id: orgs[org], name, ...extra })
    .returning('id');
  return (row as { id: string }).id;
}

beforeAll(async () => {
  ({ db, close } = await freshDatabase());
  directory = new DeviceDirectory(db.knex);
  orgs.acme = await seedOrg(db.knex, 'acme');
  orgs.globex = await seedOrg(db.knex, 'globex');
  orgs.shared = await seedOrg(db.knex, 'shared');
  ids.live = await device('acme', 'live', { provider_id: 'netbox:main:acme', external_id: '1' });
  ids.second = await device('acme', 'second', { provider_id: 'netbox:main:acme', external_id: '2' });
  ids.deleted = await device('acme', 'deleted', { provider_id: 'netbox:main:acme', external_id: '3', deleted_at: new Date() });
  ids.foreign = await device('globex', 'foreign', { provider_id: 'netbox:main:acme', external_id: '4' });
  ids.shared = await device('shared', 'shared', { provider_id: 'netbox:main:acme', external_id: '5' });
});
afterAll(() => close?.());

describe('the device directory', () => {
  it('answers which ids name live devices of the given organizations', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const found = await directory.liveIds(
      [orgs.acme!, orgs.shared!],
      [ids.live!, ids.deleted!, ids.foreign!, ids.shared!, unknown, 'not-a-uuid', ids.live!],
    );
    expect([...found].sort()).toEqual([ids.live!, ids.shared!].sort());
    expect(await directory.liveIds([orgs.acme!], [ids.shared!])).toEqual(new Set());
    expect(await directory.liveIds([orgs.acme!], [])).toEqual(new Set());
    expect(await directory.liveIds([], [ids.live!])).toEqual(new Set());
  });

  it('answers ids in the form given', async () => {
    expect(await directory.liveIds([orgs.acme!], [ids.live!.toUpperCase()])).toEqual(new Set([ids.live!.toUpperCase()]));
  });

  it('resolves provider references among the live devices of exactly one organization, in one query', async () => {
    const refs = [
      { provider_id: 'netbox:main:acme', external_id: '1' },
      { provider_id: 'netbox:main:acme', external_id: '2' },
      { provider_id: 'netbox:main:acme', external_id: '3' },
      { provider_id: 'netbox:main:acme', external_id: '4' },
      { provider_id: 'netbox:main:acme', external_id: '5' },
      { provider_id: 'netbox:other', external_id: '1' },
    ];
    let queries = 0;
    const count = () => (queries += 1);
    db.knex.on('query', count);
    const found = await directory.byProviderRefs(orgs.acme!, refs);
    db.knex.off('query', count);
    expect(queries).toBe(1);
    expect(found).toEqual(
      new Map([
        [providerRefKey(refs[0]!), ids.live!],
        [providerRefKey(refs[1]!), ids.second!],
      ]),
    );
    expect(await directory.byProviderRefs(orgs.acme!, [])).toEqual(new Map());
    expect(await directory.byProviderRefs(orgs.globex!, [refs[3]!])).toEqual(new Map([[providerRefKey(refs[3]!), ids.foreign!]]));
  });

  it("takes the caller's transaction and sees its uncommitted rows", async () => {
    const rollback = new Error('rollback');
    const seen: { id?: string; live?: Set<string>; refs?: Map<string, string> } = {};
    await expect(
      db.knex.transaction(async (trx) => {
        const [row] = await trx('devices')
          .insert({ org_id: orgs.acme, name: 'in-trx', provider_id: 'p:q', external_id: 'x' })
          .returning('id');
        seen.id = (row as { id: string }).id;
        seen.live = await directory.liveIds([orgs.acme!], [seen.id], trx);
        seen.refs = await directory.byProviderRefs(orgs.acme!, [{ provider_id: 'p:q', external_id: 'x' }], trx);
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(seen.live).toEqual(new Set([seen.id]));
    expect(seen.refs).toEqual(new Map([['p:q\u0000x', seen.id]]));
    expect(await db.knex('devices').where({ name: 'in-trx' }).first()).toBeUndefined();
  });
});
