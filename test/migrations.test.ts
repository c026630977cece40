import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, rollbackAll } from '../src/daemon/db/migrate.js';
import type { Database } from '../src/daemon/db/database.js';
import { MIGRATIONS } from '../migrations/index.js';
import { freshDatabase } from './helpers/database.js';

let db: Database;
let close: () => Promise<void>;
beforeAll(async () => {
  ({ db, close } = await freshDatabase());
});
afterAll(() => close?.());

async function columns(table: string): Promise<Record<string, { type: string; nullable: boolean }>> {
  const { rows } = await db.knex.raw(
    'SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position',
    [table],
  );
  return Object.fromEntries(
    (rows as { column_name: string; data_type: string; is_nullable: string }[]).map((r) => [
      r.column_name,
      { type: r.data_type, nullable: r.is_nullable === 'YES' },
    ]),
  );
}

describe('migrations', () => {
  it('lists every migration file of the folder, in order, each with one timestamped name', () => {
    const files = readdirSync(new URL('../migrations/', import.meta.url))
      .filter((f) => /^\d{14}_[a-z0-9_]+\.ts$/.test(f))
      .map((f) => f.slice(0, -3))
      .sort();
    expect(MIGRATIONS.map((m) => m.name)).toEqual(files);
  });

  it('keeps every knex.raw call to one statement (PGlite runs one per call)', () => {
    for (const migration of MIGRATIONS) {
      const source = readFileSync(new URL(`../migrations/${migration.name}.ts`, import.meta.url), 'utf8');
      for (const [, sql] of source.matchAll(/knex\.raw\(\s*['`]([^'`]*)['`]/g)) {
        expect(sql!.replace(/;\s*$/, ''), migration.name).not.toContain(';');
      }
    }
  });

  it('creates the tables of the access-control specification with their columns and types', async () => {
    expect(await columns('users')).toMatchObject({
      id: { type: 'uuid', nullable: false },
      sub: { type: 'character varying', nullable: false },
      username: { type: 'character varying' },
      email: { type: 'character varying' },
      display_name: { type: 'character varying' },
      is_active: { type: 'boolean' },
      created_at: { type: 'timestamp with time zone' },
      updated_at: { type: 'timestamp with time zone' },
      last_login_at: { type: 'timestamp with time zone' },
    });
    expect(await columns('organizations')).toMatchObject({
      id: { type: 'uuid' },
      slug: { type: 'character varying', nullable: false },
      name: { type: 'character varying' },
      description: { type: 'text' },
      is_active: { type: 'boolean' },
      settings_json: { type: 'jsonb' },
    });
    expect(await columns('org_memberships')).toMatchObject({
      user_id: { type: 'uuid', nullable: false },
      org_id: { type: 'uuid', nullable: false },
      role: { type: 'character varying' },
      source: { nullable: false },
    });
    expect(await columns('audit_logs')).toMatchObject({
      org_id: { type: 'uuid', nullable: true },
      ts: { type: 'timestamp with time zone' },
      event_type: { type: 'character varying' },
      actor_sub: { type: 'character varying' },
      details_json: { type: 'jsonb' },
      client_ip: { type: 'character varying' },
      user_agent: { type: 'text' },
    });
    for (const table of [
      'org_idp_mappings',
      'permission_action_overrides',
      'permission_overrides',
      'personal_access_tokens',
      'run_tokens',
      'stream_tickets',
    ]) {
      expect(Object.keys(await columns(table)).length, table).toBeGreaterThan(3);
    }
  });

  it('indexes what the specification says is indexed', async () => {
    const { rows } = await db.knex.raw(`SELECT tablename, indexdef FROM pg_indexes WHERE schemaname = current_schema()`);
    const defs = (rows as { tablename: string; indexdef: string }[]).map((r) => r.indexdef);
    const has = (table: string, cols: string, unique = false) =>
      defs.some(
        (d) =>
          d.includes(` ON ${d.includes('public.') ? 'public.' : ''}${table} `) &&
          d.includes(`(${cols})`) &&
          (!unique || d.startsWith('CREATE UNIQUE')),
      );
    expect(has('users', 'sub', true)).toBe(true);
    expect(has('users', 'username')).toBe(true);
    expect(has('organizations', 'slug', true)).toBe(true);
    expect(has('org_memberships', 'user_id, org_id', true)).toBe(true);
    expect(has('audit_logs', 'ts')).toBe(true);
    expect(has('audit_logs', 'event_type')).toBe(true);
    expect(has('audit_logs', 'actor_sub')).toBe(true);
    expect(has('org_idp_mappings', 'org_id, claim, value', true)).toBe(true);
    expect(has('permission_action_overrides', 'action', true)).toBe(true);
    expect(has('permission_overrides', 'method, path', true)).toBe(true);
  });

  it('creates the platform default organization', async () => {
    const rows = await db.knex('organizations').where({ is_default: true }).select('slug', 'is_active');
    expect(rows).toEqual([{ slug: 'default', is_active: true }]);
  });

  it('enforces one membership per user per organization, and cascades user deletion', async () => {
    const [user] = await db.knex('users').insert({ sub: 'u-1', username: 'one' }).returning('id');
    const [org] = await db.knex('organizations').where({ slug: 'default' }).select('id');
    await db.knex('org_memberships').insert({ user_id: user.id, org_id: org.id });
    await expect(db.knex('org_memberships').insert({ user_id: user.id, org_id: org.id })).rejects.toMatchObject({ code: '23505' });
    await expect(db.knex('org_memberships').insert({ user_id: user.id, org_id: org.id, source: 'ldap' })).rejects.toMatchObject({
      code: '23514',
    });
    await db.knex('users').where({ id: user.id }).delete();
    expect(await db.knex('org_memberships').where({ user_id: user.id }).select()).toEqual([]);
  });

  it('refuses a slug that is not URL-safe', async () => {
    await expect(db.knex('organizations').insert({ slug: 'Not Safe', name: 'x' })).rejects.toMatchObject({ code: '23514' });
  });

  it('is reversible: everything rolls back and applies again', async () => {
    await rollbackAll(db.knex);
    const { rows } = await db.knex.raw(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_name = 'users'`);
    expect(rows[0].n).toBe(0);
    expect(await migrateToLatest(db.knex)).toHaveLength(MIGRATIONS.length);
  });
});
