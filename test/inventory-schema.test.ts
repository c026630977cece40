import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/daemon/db/database.js';
import { freshDatabase } from './helpers/database.js';
import { seedOrg } from './helpers/seed.js';

let db: Database;
let close: () => Promise<void>;
let org: string;

beforeAll(async () => {
  ({ db, close } = await freshDatabase());
  org = await seedOrg(db.knex, 'acme');
});
afterAll(() => close?.());

async function columns(table: string): Promise<Record<string, string>> {
  const { rows } = await db.knex.raw('SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = ?', [
    table,
  ]);
  return Object.fromEntries(
    (rows as { column_name: string; data_type: string; is_nullable: string }[]).map((r) => [
      r.column_name,
      `${r.data_type}${r.is_nullable === 'YES' ? ' null' : ''}`,
    ]),
  );
}

const STAMPS = {
  created_at: 'timestamp with time zone',
  updated_at: 'timestamp with time zone',
  created_by: 'character varying null',
  updated_by: 'character varying null',
  deleted_at: 'timestamp with time zone null',
  deleted_by: 'character varying null',
};

describe('the inventory tables', () => {
  it('have the agreed columns', async () => {
    expect(await columns('sites')).toEqual({
      id: 'uuid',
      org_id: 'uuid',
      name: 'character varying',
      description: 'text null',
      parent_id: 'uuid null',
      address: 'text null',
      tags: 'jsonb',
      provider_id: 'character varying null',
      external_id: 'character varying null',
      provider_seen_at: 'timestamp with time zone null',
      ...STAMPS,
    });
    expect(await columns('devices')).toEqual({
      id: 'uuid',
      org_id: 'uuid',
      name: 'character varying',
      hostname: 'character varying null',
      platform: 'character varying null',
      role: 'character varying null',
      site_id: 'uuid null',
      serial: 'character varying null',
      tags: 'jsonb',
      attributes_json: 'jsonb',
      overlay_json: 'jsonb',
      provider_id: 'character varying null',
      external_id: 'character varying null',
      provider_seen_at: 'timestamp with time zone null',
      ...STAMPS,
    });
  });

  it('fill in ids and JSON defaults', async () => {
    const [site] = await db.knex('sites').insert({ org_id: org, name: 'defaults' }).returning(['id', 'tags']);
    expect(site).toMatchObject({ id: expect.any(String), tags: [] });
    const [device] = await db
      .knex('devices')
      .insert({ org_id: org, name: 'defaults' })
      .returning(['id', 'tags', 'attributes_json', 'overlay_json']);
    expect(device).toMatchObject({ tags: [], attributes_json: {}, overlay_json: {} });
  });

  it('keep names unique among live rows only', async () => {
    await db.knex('sites').insert({ org_id: org, name: 'unique-site' });
    await expect(db.knex('sites').insert({ org_id: org, name: 'unique-site' })).rejects.toMatchObject({ code: '23505' });
    await db.knex('sites').insert({ org_id: org, name: 'unique-site', deleted_at: new Date() });
    await db.knex('devices').insert({ org_id: org, name: 'unique-device' });
    await expect(db.knex('devices').insert({ org_id: org, name: 'unique-device' })).rejects.toMatchObject({ code: '23505' });
    await db.knex('devices').insert({ org_id: org, name: 'unique-device', deleted_at: new Date() });
  });

  it('keep a provider reference unique among the live devices of an organization', async () => {
    const ref = { org_id: org, provider_id: 'netbox:main', external_id: '7' };
    await db.knex('devices').insert({ ...ref, name: 'ref-1' });
    await expect(db.knex('devices').insert({ ...ref, name: 'ref-2' })).rejects.toMatchObject({ code: '23505' });
    await db.knex('devices').insert({ ...ref, name: 'ref-3', deleted_at: new Date() });
    // Local devices (no provider) never collide on the reference.
    await db.knex('devices').insert([
      { org_id: org, name: 'local-1' },
      { org_id: org, name: 'local-2' },
    ]);
  });

  it('refuse tags that are not a JSON array', async () => {
    await expect(db.knex('sites').insert({ org_id: org, name: 'bad-tags', tags: JSON.stringify({ a: 1 }) })).rejects.toMatchObject({
      code: '23514',
    });
    await expect(db.knex('devices').insert({ org_id: org, name: 'bad-tags', tags: JSON.stringify('x') })).rejects.toMatchObject({
      code: '23514',
    });
  });

  it('detach children and devices when a site is removed, and go with their organization', async () => {
    const [parent] = await db.knex('sites').insert({ org_id: org, name: 'fk-parent' }).returning('id');
    const [child] = await db.knex('sites').insert({ org_id: org, name: 'fk-child', parent_id: parent.id }).returning('id');
    const [device] = await db.knex('devices').insert({ org_id: org, name: 'fk-device', site_id: parent.id }).returning('id');
    await db.knex('sites').where({ id: parent.id }).delete();
    expect((await db.knex('sites').where({ id: child.id }).first()).parent_id).toBeNull();
    expect((await db.knex('devices').where({ id: device.id }).first()).site_id).toBeNull();

    const other = await seedOrg(db.knex, 'doomed');
    await db.knex('sites').insert({ org_id: other, name: 'doomed-site' });
    await db.knex('devices').insert({ org_id: other, name: 'doomed-device' });
    await db.knex('organizations').where({ id: other }).delete();
    expect(await db.knex('sites').where({ org_id: other }).select()).toEqual([]);
    expect(await db.knex('devices').where({ org_id: other }).select()).toEqual([]);
  });
});
