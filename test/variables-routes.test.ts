import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectIfMatchHonoured, ifMatch } from './helpers/if-match.js';
import { call, count, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

let world: World;
const knex = () => world.knex();
const audits = (eventType: string, id: string) =>
  knex()('audit_logs').where({ event_type: eventType, resource_id: id, resource_type: 'variable' });

beforeAll(async () => {
  world = await startWorld();
});
afterAll(() => world?.close());

async function create(fields: Record<string, unknown>, who = 'alice', org = 'acme'): Promise<Record<string, any>> {
  const created = await call(world, who, 'POST', '/variables', fields, org);
  if (created.status !== 201) throw new Error(`POST /variables answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body;
}

describe('POST /variables', () => {
  it.each([
    ['string', 'eu-west-1'],
    ['number', 8.5],
    ['boolean', false],
    ['json', { vlans: [10, 20], mtu: 9000 }],
    ['json', null],
    ['secret_ref', "{{ secret('snmp-community') }}"],
    ['secret_ref', 'builtin://orgs/acme/secrets/net/snmp#community'],
  ])('stores a %s variable with its value, audited entity.created', async (type, value) => {
    const name = `v_${type}_${Math.random().toString(36).slice(2, 8)}`;
    const answer = await call(world, 'alice', 'POST', '/variables', { name, type, value, description: 'why' });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('location')).toBe(`/variables/${answer.body.id}`);
    expect(answer.body).toMatchObject({
      org_id: world.ids.acme,
      name,
      type,
      value,
      description: 'why',
      shared: false,
      created_by: 'sub-alice',
    });
    const [entry] = await audits('entity.created', answer.body.id);
    expect(entry).toMatchObject({ action: 'variable:manage', outcome: 'success', org_id: world.ids.acme });
    expect(entry.details_json).toMatchObject({ name, snapshot: { type, value } });
  });

  it.each([
    ['string', 5],
    ['number', '5'],
    ['boolean', 'true'],
    ['json', 'text'],
    ['secret_ref', 'plain text, no reference'],
    ['secret_ref', 42],
    ['string', 'nul \u0000 here'],
  ])('refuses a %s variable holding %j (422 at value), storing nothing', async (type, value) => {
    const before = await count(knex()('variables'));
    const answer = await call(world, 'alice', 'POST', '/variables', { name: 'bad_value', type, value });
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('validation_failed');
    expect(answer.body.errors.map((e: { path: string }) => e.path)).toEqual(['value']);
    expect(await count(knex()('variables'))).toBe(before);
  });

  it('refuses a missing value, a value too large, a bad name and an unknown type', async () => {
    const missing = await call(world, 'alice', 'POST', '/variables', { name: 'no_value', type: 'string' });
    expect([missing.status, missing.body.errors[0].path]).toEqual([422, 'value']);
    const big = await call(world, 'alice', 'POST', '/variables', { name: 'big', type: 'string', value: 'x'.repeat(70_000) });
    expect([big.status, big.body.errors[0].path]).toEqual([422, 'value']);
    for (const name of ['1st', 'has-dash', 'has.dot', '', 'x'.repeat(129), 'über']) {
      const answer = await call(world, 'alice', 'POST', '/variables', { name, type: 'string', value: 'v' });
      expect([answer.status, answer.body.code, answer.body.errors[0].path]).toEqual([422, 'validation_failed', 'name']);
    }
    const type = await call(world, 'alice', 'POST', '/variables', { name: 'typed', type: 'secret', value: 'v' });
    expect([type.status, type.body.errors[0].path]).toEqual([422, 'type']);
    const extra = await call(world, 'alice', 'POST', '/variables', { name: 'extra', type: 'string', value: 'v', scope: 'x' });
    expect(extra.status).toBe(422);
  });

  it('refuses a second live variable of a name (409), in the same organization only', async () => {
    await create({ name: 'site_code', type: 'string', value: 'FRA' });
    const again = await call(world, 'alice', 'POST', '/variables', { name: 'site_code', type: 'string', value: 'AMS' });
    expect([again.status, again.body.code]).toEqual([409, 'conflict']);
    const elsewhere = await call(world, 'bob', 'POST', '/variables', { name: 'site_code', type: 'string', value: 'NYC' }, 'globex');
    expect(elsewhere.status).toBe(201);
  });

  it('is for admins: an operator and a viewer are refused (403)', async () => {
    for (const who of ['dave', 'carol']) {
      const answer = await call(world, who, 'POST', '/variables', { name: 'nope', type: 'string', value: 'v' });
      expect(answer.status).toBe(403);
    }
  });
});

describe('GET /variables and GET /variables/{id}', () => {
  let shared: Record<string, any>;
  let foreign: Record<string, any>;

  beforeAll(async () => {
    shared = await create({ name: 'ntp_server', type: 'string', value: '10.0.0.1' }, 'sam', 'commons');
    foreign = await create({ name: 'globex_only', type: 'number', value: 1 }, 'bob', 'globex');
    await create({ name: 'list_alpha', type: 'string', value: 'a' });
    await create({ name: 'list_beta', type: 'boolean', value: true });
  });

  it("lists the organization's and the shared organization's variables by name, paged, with a total", async () => {
    const answer = await call(world, 'carol', 'GET', '/variables?q=list_&limit=1');
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(answer.body.items.map((v: { name: string }) => v.name)).toEqual(['list_alpha']);
    const next = await call(world, 'carol', 'GET', '/variables?q=LIST_&limit=1&offset=1');
    expect(next.body.items.map((v: { name: string }) => v.name)).toEqual(['list_beta']);

    const all = await call(world, 'carol', 'GET', '/variables?limit=500');
    const names = all.body.items.map((v: { name: string }) => v.name);
    expect(names).toContain('ntp_server');
    expect(names).not.toContain('globex_only');
    expect(all.body.items.find((v: { name: string }) => v.name === 'ntp_server')).toMatchObject({
      shared: true,
      org_id: world.ids.commons,
    });
  });

  it('filters by type and refuses unknown filters', async () => {
    const booleans = await call(world, 'carol', 'GET', '/variables?type=boolean');
    expect(booleans.body.items.every((v: { type: string }) => v.type === 'boolean')).toBe(true);
    expect(booleans.body.items.map((v: { name: string }) => v.name)).toContain('list_beta');
    expect((await call(world, 'carol', 'GET', '/variables?type=secret')).status).toBe(422);
    expect((await call(world, 'carol', 'GET', '/variables?sort=name')).status).toBe(422);
    expect((await call(world, 'carol', 'GET', '/variables?limit=501')).status).toBe(422);
  });

  it("reads one variable, the shared organization's too; another organization's id, an unknown or malformed one is 404", async () => {
    const own = await create({ name: 'readable', type: 'json', value: { a: [1] } });
    const answer = await call(world, 'carol', 'GET', `/variables/${own.id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ name: 'readable', type: 'json', value: { a: [1] } });
    expect((await call(world, 'carol', 'GET', `/variables/${shared.id}`)).body).toMatchObject({ shared: true });
    for (const id of [foreign.id, UNKNOWN_ID, 'not-a-uuid']) {
      const missing = await call(world, 'carol', 'GET', `/variables/${id}`);
      expect([missing.status, missing.body.code]).toEqual([404, 'resource_not_found']);
    }
  });
});

describe('PATCH, DELETE, restore and purge', () => {
  it('changes the value, name and type, auditing each field before and after', async () => {
    const v = await create({ name: 'mtu', type: 'number', value: 1500 });
    const changed = await call(world, 'alice', 'PATCH', `/variables/${v.id}`, { value: 9000, description: 'jumbo' });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ value: 9000, description: 'jumbo', updated_by: 'sub-alice' });
    const [entry] = await audits('entity.updated', v.id);
    expect(entry.details_json).toMatchObject({
      changes: { value: { old: 1500, new: 9000 }, description: { old: null, new: 'jumbo' } },
    });
    const retyped = await call(world, 'alice', 'PATCH', `/variables/${v.id}`, { type: 'string', value: '9000', name: 'mtu_text' });
    expect(retyped.body).toMatchObject({ type: 'string', value: '9000', name: 'mtu_text' });
  });

  it('answers its version as ETag and takes If-Match: a stale one is 412, nothing written', async () => {
    const v = await create({ name: 'tagged_mtu', type: 'number', value: 1500 });
    await expectIfMatchHonoured(world, {
      collection: 'variables',
      table: 'variables',
      id: v.id,
      reader: 'alice',
      writer: 'alice',
      changes: [{ value: 9000 }, { value: 1, description: 'late' }, { value: 9001 }, { value: 9002 }],
    });
  });

  it("tags the shared organization's variable as each caller reads it: its own admin's read lets a PATCH through", async () => {
    const shared = await create({ name: 'tagged_shared', type: 'string', value: 'a' }, 'sam', 'commons');
    const path = `/variables/${shared.id}`;
    const seen = await call(world, 'alice', 'GET', path);
    const own = await call(world, 'sam', 'GET', path, undefined, 'commons');
    expect([seen.body.shared, own.body.shared]).toEqual([true, false]);
    expect(seen.headers.get('etag')).not.toBe(own.headers.get('etag'));
    const refused = await call(world, 'alice', 'PATCH', path, { value: 'b' }, 'acme', ifMatch(seen.headers.get('etag')));
    expect([refused.status, refused.body.code]).toEqual([403, 'shared_read_only']);
    const changed = await call(world, 'sam', 'PATCH', path, { value: 'c' }, 'commons', ifMatch(own.headers.get('etag')));
    expect(changed.status).toBe(200);
    expect((await knex()('variables').where({ id: shared.id }).first()).value_json).toBe('c');
  });

  it('refuses a new type the stored value does not fit, a taken name and an empty change, changing nothing', async () => {
    const v = await create({ name: 'flag', type: 'boolean', value: true });
    await create({ name: 'taken_name', type: 'string', value: 'x' });
    const retype = await call(world, 'alice', 'PATCH', `/variables/${v.id}`, { type: 'number' });
    expect([retype.status, retype.body.errors[0].path]).toEqual([422, 'value']);
    const clash = await call(world, 'alice', 'PATCH', `/variables/${v.id}`, { name: 'taken_name' });
    expect([clash.status, clash.body.code]).toEqual([409, 'conflict']);
    expect((await call(world, 'alice', 'PATCH', `/variables/${v.id}`, {})).status).toBe(422);
    expect((await call(world, 'alice', 'GET', `/variables/${v.id}`)).body).toMatchObject({ name: 'flag', type: 'boolean', value: true });
  });

  it('refuses a null value for a variable whose type cannot hold it (only json may), changing nothing', async () => {
    for (const [type, value] of [
      ['string', 'ntp.example'],
      ['number', 1500],
      ['boolean', true],
      ['secret_ref', "{{ secret('snmp') }}"],
    ] as const) {
      const v = await create({ name: `nullable_${type}`, type, value });
      const nulled = await call(world, 'alice', 'PATCH', `/variables/${v.id}`, { value: null });
      expect([nulled.status, nulled.body.code, nulled.body.errors?.[0]?.path]).toEqual([422, 'validation_failed', 'value']);
      expect((await knex()('variables').where({ id: v.id }).first()).value_json).toEqual(value);
    }
    const json = await create({ name: 'nullable_json', type: 'json', value: { a: 1 } });
    const nulled = await call(world, 'alice', 'PATCH', `/variables/${json.id}`, { value: null });
    expect([nulled.status, nulled.body.value]).toEqual([200, null]);
  });

  it("refuses writes to the shared organization's variable (403 shared_read_only) and another's (404)", async () => {
    const shared = await create({ name: 'shared_dns', type: 'string', value: '1.1.1.1' }, 'sam', 'commons');
    const foreign = await create({ name: 'theirs', type: 'string', value: 'x' }, 'bob', 'globex');
    const writes: [string, string, unknown?][] = [
      ['PATCH', '', { value: '8.8.8.8' }],
      ['DELETE', ''],
      ['POST', '/restore'],
      ['DELETE', '/permanent'],
    ];
    for (const [method, suffix, body] of writes) {
      const toShared = await call(world, 'alice', method, `/variables/${shared.id}${suffix}`, body);
      expect([method + suffix, toShared.status, toShared.body.code]).toEqual([method + suffix, 403, 'shared_read_only']);
      const toForeign = await call(world, 'alice', method, `/variables/${foreign.id}${suffix}`, body);
      expect([method + suffix, toForeign.status, toForeign.body.code]).toEqual([method + suffix, 404, 'resource_not_found']);
    }
    const stillThere = await call(world, 'sam', 'GET', `/variables/${shared.id}`, undefined, 'commons');
    expect(stillThere.body).toMatchObject({ value: '1.1.1.1', deleted_at: null });
    // The shared organization's own admin changes it there.
    expect((await call(world, 'sam', 'PATCH', `/variables/${shared.id}`, { value: '9.9.9.9' }, 'commons')).status).toBe(200);
  });

  it('soft-deletes (hidden, listed with include_deleted, name free), restores, and purges for good', async () => {
    const v = await create({ name: 'lifecycle', type: 'string', value: 'one' });
    expect((await call(world, 'alice', 'DELETE', `/variables/${v.id}`)).status).toBe(204);
    expect((await call(world, 'alice', 'GET', `/variables/${v.id}`)).status).toBe(404);
    expect((await call(world, 'alice', 'DELETE', `/variables/${v.id}`)).status).toBe(404);
    const listed = await call(world, 'alice', 'GET', '/variables?q=lifecycle&include_deleted=true');
    expect(listed.body.items.map((i: { id: string; deleted_at: string | null }) => [i.id, i.deleted_at !== null])).toEqual([[v.id, true]]);
    expect((await call(world, 'alice', 'GET', '/variables?q=lifecycle')).body.total).toBe(0);

    // Its name is free while it is deleted; restoring it then is refused until the new one goes.
    const other = await create({ name: 'lifecycle', type: 'string', value: 'two' });
    expect((await call(world, 'alice', 'POST', `/variables/${v.id}/restore`)).status).toBe(409);
    expect((await call(world, 'alice', 'DELETE', `/variables/${other.id}/permanent`)).status).toBe(204);
    const restored = await call(world, 'alice', 'POST', `/variables/${v.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ value: 'one', deleted_at: null, deleted_by: null });
    expect((await audits('entity.restored', v.id)).length).toBe(1);

    expect((await call(world, 'dave', 'DELETE', `/variables/${v.id}/permanent`)).status).toBe(403);
    expect((await call(world, 'alice', 'DELETE', `/variables/${v.id}/permanent`)).status).toBe(204);
    expect(await count(knex()('variables').where({ id: v.id }))).toBe(0);
    const [purged] = await audits('entity.purged', v.id);
    expect(purged).toMatchObject({ action: 'variable:purge' });
    expect((await audits('entity.deleted', v.id)).length).toBe(1);
  });
});
