import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc } from './helpers/cli.js';
import {
  createNetboxProvider,
  providerPath,
  seedNetbox,
  startProviderWorld,
  sync,
  type ProviderWorld,
} from './helpers/inventory-providers-fixtures.js';
import { call, createSecret } from './helpers/webhooks-fixtures.js';

/**
 * Providers as resources: the plugins and provider types, create with every coded refusal (nothing
 * stored), reads with the credential as its reference, tenancy, update, delete, restore, permanent
 * delete; test-connection and discover; the object reads over what a sync imported; a static provider.
 */

let world: ProviderWorld;
const knex = () => world.knex();
const providers = async () => Number((await knex()('inventory_providers').count({ n: '*' }))[0]!.n);

beforeAll(async () => {
  world = await startProviderWorld();
  seedNetbox(world.netbox, { sites: 2, devices: 5, vlans: 3 });
});
afterAll(() => world?.close());

const netbox = (fields: Record<string, unknown> = {}) => ({
  type: 'netbox',
  name: 'dc1',
  config: { url: world.netbox.url },
  credential_ref: world.tokenRef,
  ...fields,
});

describe('plugins and provider types', () => {
  it('lists the plugins with their configuration schema, under inventory and settings (platform routes: realm roles decide)', async () => {
    for (const path of ['/inventory/plugins', '/settings/plugins']) {
      const answer = await call(world, 'root', 'GET', path);
      expect(answer.status).toBe(200);
      expect(answer.body.items.map((p: { type: string }) => p.type)).toEqual(['netbox', 'nautobot', 'static']);
      const nb = answer.body.items[0];
      expect(nb).toMatchObject({ kind: 'inventory_provider', incremental: true, credential: 'required' });
      expect(nb.config_schema.properties.url).toBeDefined();
      expect(nb.config_schema.required).toEqual(['url']);
    }
    expect((await call(world, 'dave', 'GET', '/inventory/plugins')).status).toBe(403); // an organization's operator is no platform operator
  });

  it('lists the provider types', async () => {
    const answer = await call(world, 'dave', 'GET', '/inventory/provider-types');
    expect(answer.status).toBe(200);
    expect(answer.body.items.find((t: { type: string }) => t.type === 'static')).toMatchObject({ incremental: false });
  });
});

describe('create refuses bad input with a code, storing nothing', () => {
  it.each([
    ['an unknown type', { type: 'infoblox' }, 'unknown_provider_type'],
    ['a malformed URL', { config: { url: 'not a url' } }, 'invalid_provider_url'],
    ['a URL of another scheme', { config: { url: 'ftp://netbox.example.test' } }, 'invalid_provider_url'],
    ['a URL holding credentials', { config: { url: 'https://user:pw@netbox.example.test' } }, 'invalid_provider_url'],
    ['a provider id not made of its type and name', { provider_id: 'netbox:other' }, 'provider_id_mismatch'],
    ['an unknown config member', { config: { url: 'https://netbox.example.test', verify: false } }, 'invalid_provider_config'],
    [
      'an object type the plugin does not import',
      { config: { url: 'https://nb.example.test', object_types: ['racks'] } },
      'invalid_provider_config',
    ],
    ['a name with a colon', { name: 'dc:1' }, 'validation_failed'],
    ['a credential that is not a secret reference', { credential_ref: 'plain-token' }, 'validation_failed'],
    ['a reference to no secret', { credential_ref: "{{ secret('missing') }}" }, 'validation_failed'],
    ['no credential for NetBox', { credential_ref: null }, 'validation_failed'],
  ])('%s', async (_what, fields, code) => {
    const answer = await call(world, 'alice', 'POST', '/inventory/providers', netbox(fields));
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe(code);
    expect(await providers()).toBe(0);
  });

  it("names the expected provider id, and refuses another organization's secret", async () => {
    const mismatch = await call(world, 'alice', 'POST', '/inventory/providers', netbox({ provider_id: 'netbox:dc1' }));
    expect(mismatch.body.expected).toBe(`netbox:dc1:${world.ids.acme}`);
    await createSecret(world, 'bob', 'theirs', 'x', 'globex');
    const foreign = await call(
      world,
      'alice',
      'POST',
      '/inventory/providers',
      netbox({ credential_ref: 'builtin://orgs/globex/secrets/theirs' }),
    );
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors[0].path).toBe('credential_ref');
  });

  it('gives the line and column of a static YAML document that does not parse', async () => {
    const answer = await call(world, 'alice', 'POST', '/inventory/providers', {
      type: 'static',
      name: 'lab',
      config: { document: 'devices:\n  - id: 1\n    name: [unclosed\n' },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('invalid_provider_config');
    expect(answer.body.errors[0]).toMatchObject({ path: 'config.document' });
    expect(answer.body.errors[0].line).toBeGreaterThan(0);
  });
});

describe('a provider as a resource', () => {
  let providerId: string;

  it('creates it with the id the spec fixes, showing the credential as its reference', async () => {
    const created = await call(world, 'alice', 'POST', '/inventory/providers', netbox({ provider_id: `netbox:dc1:${world.ids.acme}` }));
    expect(created.status).toBe(201);
    providerId = created.body.provider_id;
    expect(providerId).toBe(`netbox:dc1:${world.ids.acme}`);
    expect(created.body).toMatchObject({ type: 'netbox', name: 'dc1', credential_ref: world.tokenRef, enabled: true });
    expect(created.body.config).toMatchObject({ url: world.netbox.url, page_size: 100, object_types: [] });
    expect(JSON.stringify(created.body)).not.toContain(world.netbox.token);
    const audit = await knex()('audit_logs').where({ event_type: 'entity.created', resource_type: 'inventory_provider' }).first();
    expect(JSON.stringify(audit)).not.toContain(world.netbox.token);
  });

  it('names a provider of the default organization without its organization', async () => {
    const created = await call(
      world,
      'root',
      'POST',
      '/inventory/providers',
      { type: 'static', name: 'seed', config: { document: 'devices: []' } },
      'default',
    );
    expect(created.status).toBe(201);
    expect(created.body.provider_id).toBe('static:seed');
  });

  it('refuses a second provider of the same id (409)', async () => {
    expect((await call(world, 'alice', 'POST', '/inventory/providers', netbox())).status).toBe(409);
  });

  it('reads and lists it; another organization, a viewer and a malformed id get nothing', async () => {
    expect((await call(world, 'alice', 'GET', providerPath(providerId))).body.provider_id).toBe(providerId);
    const list = await call(world, 'alice', 'GET', '/inventory/providers?type=netbox');
    expect(list.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect((await call(world, 'bob', 'GET', providerPath(providerId), undefined, 'globex')).status).toBe(404);
    expect((await call(world, 'bob', 'GET', '/inventory/providers', undefined, 'globex')).body.total).toBe(0);
    expect((await call(world, 'dave', 'GET', providerPath(providerId))).status).toBe(403);
    expect((await call(world, 'alice', 'GET', providerPath('netbox'))).status).toBe(404);
  });

  it('updates its configuration, checked again', async () => {
    const bad = await call(world, 'alice', 'PATCH', providerPath(providerId), { config: { url: 'gopher://x' } });
    expect(bad.body.code).toBe('invalid_provider_url');
    const changed = await call(world, 'alice', 'PATCH', providerPath(providerId), {
      config: { url: world.netbox.url, object_types: ['vlan'] },
      description: 'main DC',
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ description: 'main DC', config: { object_types: ['vlan'] } });
    expect((await call(world, 'alice', 'PATCH', providerPath(providerId), { name: 'other' })).status).toBe(422);
  });

  it('tests the connection: the version on success', async () => {
    const report = await call(world, 'alice', 'POST', providerPath(providerId, '/test-connection'));
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ ok: true, details: { version: '4.1.3' }, error: null });
  });

  it('refuses to reach an address outside the allowed networks (cloud metadata), through the outbound guard', async () => {
    const created = await call(
      world,
      'alice',
      'POST',
      '/inventory/providers',
      netbox({ name: 'metadata', config: { url: 'http://169.254.169.254' } }),
    );
    expect(created.status).toBe(201);
    const report = await call(world, 'alice', 'POST', providerPath(created.body.provider_id, '/test-connection'));
    expect(report.body).toMatchObject({ ok: false, error: { code: 'address_not_allowed' } });
    const discover = await call(world, 'alice', 'POST', providerPath(created.body.provider_id, '/discover'));
    expect(discover.status).toBe(502);
    expect(discover.body).toMatchObject({ code: 'provider_request_failed', reason: 'address_not_allowed' });
    expect((await call(world, 'alice', 'DELETE', providerPath(created.body.provider_id, '/permanent'))).status).toBe(204);
  });

  it('discovers what the provider holds without importing it', async () => {
    const answer = await call(world, 'alice', 'POST', providerPath(providerId, '/discover'));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ sites: 2, devices: 5, objects: { vlan: 3 } });
    expect(Number((await knex()('devices').count({ n: '*' }))[0]!.n)).toBe(0);
  });

  it('refuses discover and sync of a disabled provider (409)', async () => {
    await call(world, 'alice', 'PATCH', providerPath(providerId), { enabled: false });
    expect((await call(world, 'alice', 'POST', providerPath(providerId, '/discover'))).body.code).toBe('provider_disabled');
    expect((await sync(world, providerId)).body.code).toBe('provider_disabled');
    await call(world, 'alice', 'PATCH', providerPath(providerId), { enabled: true });
  });
});

describe('inventory objects', () => {
  let providerId: string;
  let vlanId: string;

  beforeAll(async () => {
    providerId = `netbox:dc1:${world.ids.acme}`;
    expect((await sync(world, providerId)).status).toBe(200);
  });

  it('lists the object types and their counts', async () => {
    const types = await call(world, 'dave', 'GET', '/inventory/object-types');
    expect(types.body.items.find((t: { object_type: string }) => t.object_type === 'vlan')).toMatchObject({
      provider_types: ['netbox', 'nautobot'],
    });
    const counts = await call(world, 'dave', 'GET', '/inventory/object-types/counts');
    expect(counts.body.items).toEqual([{ object_type: 'vlan', live: 3, stale: 0 }]);
  });

  it('lists, reads and resolves objects of a type', async () => {
    const list = await call(world, 'dave', 'GET', '/inventory/objects/vlan?q=VLAN-2');
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    vlanId = list.body.items[0].id;
    expect(list.body.items[0]).toMatchObject({ name: 'vlan-2', external_id: '2', provider_id: providerId, stale: false });
    expect(list.body.items[0].data).toMatchObject({ vid: 102 });
    expect((await call(world, 'dave', 'GET', `/inventory/objects/vlan/${vlanId}`)).body.id).toBe(vlanId);
    const byExternal = await call(
      world,
      'dave',
      'GET',
      `/inventory/objects/vlan/resolve?provider_id=${encodeURIComponent(providerId)}&external_id=2`,
    );
    expect(byExternal.body.id).toBe(vlanId);
    const byName = await call(
      world,
      'dave',
      'GET',
      `/inventory/objects/vlan/resolve?provider_id=${encodeURIComponent(providerId)}&name=vlan-2`,
    );
    expect(byName.body.id).toBe(vlanId);
  });

  it('answers 404 for another type, another organization, a malformed id or an unmatched reference', async () => {
    expect((await call(world, 'dave', 'GET', `/inventory/objects/prefix/${vlanId}`)).status).toBe(404);
    expect((await call(world, 'bob', 'GET', `/inventory/objects/vlan/${vlanId}`, undefined, 'globex')).status).toBe(404);
    expect((await call(world, 'dave', 'GET', '/inventory/objects/vlan/not-a-uuid')).status).toBe(404);
    expect((await call(world, 'dave', 'GET', '/inventory/objects/Bad-Type')).status).toBe(404);
    expect((await call(world, 'dave', 'GET', `/inventory/objects/vlan/resolve?provider_id=x:y&external_id=2`)).status).toBe(404);
    expect((await call(world, 'dave', 'GET', '/inventory/objects/vlan/resolve?provider_id=x:y')).status).toBe(422);
    expect((await call(world, 'carol', 'GET', '/inventory/objects/vlan')).status).toBe(403);
  });

  it('summarises what each provider imported', async () => {
    const answer = await call(world, 'alice', 'GET', '/inventory/provider-inventory');
    expect(answer.status).toBe(200);
    expect(answer.body.items[0]).toMatchObject({
      provider_id: providerId,
      sites: { live: 2, stale: 0 },
      devices: { live: 5, stale: 0 },
      objects: { vlan: { live: 3, stale: 0 } },
      last_sync: { status: 'succeeded' },
    });
  });
});

describe('a static provider', () => {
  it('imports the sites, devices and objects of its YAML document', async () => {
    const document = [
      'sites:',
      '  - {id: lab, name: Lab, tags: [test]}',
      'devices:',
      '  - {id: sw1, name: lab-sw1, hostname: 192.0.2.10, platform: eos, site: lab}',
      'objects:',
      '  circuit:',
      '    - {id: c1, name: uplink, speed: 10000}',
    ].join('\n');
    const created = await call(world, 'alice', 'POST', '/inventory/providers', { type: 'static', name: 'lab', config: { document } });
    expect(created.status).toBe(201);
    const answer = await sync(world, created.body.provider_id);
    expect(answer.status).toBe(200);
    expect(answer.body.counts).toMatchObject({ sites: { created: 1 }, devices: { created: 1 }, objects: { created: 1 } });
    const device = await knex()('devices').where({ provider_id: created.body.provider_id, external_id: 'sw1' }).first();
    const site = await knex()('sites').where({ provider_id: created.body.provider_id, external_id: 'lab' }).first();
    expect(device).toMatchObject({ name: 'lab-sw1', hostname: '192.0.2.10', site_id: site.id });
    expect((await sync(world, created.body.provider_id, { mode: 'incremental' })).status).toBe(422);
  });

  it('refuses a document whose aliases expand past the limit (422, not a 500), storing nothing', async () => {
    const document = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...'bcdefghij'.split('').map((k, i) => `${k}: &${k} [${Array(10).fill(`*${'abcdefghij'[i]}`).join(', ')}]`),
    ].join('\n');
    const answer = await call(world, 'alice', 'POST', '/inventory/providers', { type: 'static', name: 'laughs', config: { document } });
    expect(answer.status).toBe(422);
    expect(answer.body.code).toBe('invalid_provider_config');
    expect(await knex()('inventory_providers').where({ name: 'laughs' }).first()).toBeUndefined();
  });

  it('refuses an object type the object routes could never name (422 with its path), importing nothing', async () => {
    for (const type of ['Bad Type', 'x'.repeat(65), '1st']) {
      const document = `objects:\n  "${type}":\n    - {id: a, name: b}\n`;
      const answer = await call(world, 'alice', 'POST', '/inventory/providers', { type: 'static', name: 'badtypes', config: { document } });
      expect(answer.status).toBe(422);
      expect(answer.body.code).toBe('invalid_provider_config');
      expect(answer.body.errors[0].path).toBe(`config.document.objects.${type}`);
    }
    expect(await knex()('inventory_providers').where({ name: 'badtypes' }).first()).toBeUndefined();
  });

  it('answers a document saved before the type rule as invalid (422 to sync, ok: false to test), not 500', async () => {
    const created = await call(world, 'alice', 'POST', '/inventory/providers', {
      type: 'static',
      name: 'oldtypes',
      config: { document: 'objects:\n  circuit:\n    - {id: a, name: b}\n' },
    });
    expect(created.status).toBe(201);
    const document = 'objects:\n  "Old Type":\n    - {id: a, name: b}\n';
    await knex()('inventory_providers').where({ id: created.body.id }).update({ config_json: { document } });
    const synced = await sync(world, created.body.provider_id);
    expect(synced.status).toBe(422);
    expect(synced.body.code).toBe('invalid_provider_config');
    expect(synced.body.errors[0].path).toBe('config.document.objects.Old Type');
    const tested = await call(world, 'alice', 'POST', providerPath(created.body.provider_id, '/test-connection'));
    expect(tested.status).toBe(200);
    expect(tested.body).toMatchObject({ ok: false, error: { code: 'invalid_document' } });
  });
});

describe('delete, restore, permanent delete', () => {
  it('soft-deletes (the imported rows stay), restores, then removes the provider and all it imported', async () => {
    const provider = await createNetboxProvider(world, 'temp');
    const path = providerPath(provider.provider_id);
    expect((await sync(world, provider.provider_id)).status).toBe(200);
    expect((await call(world, 'alice', 'DELETE', path)).status).toBe(204);
    expect((await call(world, 'alice', 'GET', path)).status).toBe(404);
    expect(
      (await call(world, 'alice', 'GET', '/inventory/providers?include_deleted=true')).body.items.some(
        (p: { provider_id: string }) => p.provider_id === provider.provider_id,
      ),
    ).toBe(true);
    expect((await call(world, 'alice', 'POST', `${path}/restore`)).status).toBe(200);
    expect((await call(world, 'alice', 'POST', `${path}/restore`)).status).toBe(404);
    expect((await call(world, 'alice', 'DELETE', `${path}/permanent`)).status).toBe(204);
    expect(await knex()('inventory_providers').where({ provider_id: provider.provider_id }).first()).toBeUndefined();
    expect(await knex()('inventory_sync_runs').where({ provider_row_id: provider.id }).first()).toBeUndefined();
    expect(await knex()('sites').where({ provider_id: provider.provider_id }).first()).toBeUndefined();
    const purged = await knex()('audit_logs').where({ event_type: 'entity.purged', resource_type: 'inventory_provider' }).first();
    expect(purged.action).toBe('inventory_provider:purge');
  });
});

describe('svc inventory-providers', () => {
  let configHome: string;
  const svc = (who: string, args: string[]) =>
    runSvc(['--server', world.url, '--org', 'acme', ...args], { configHome, env: { SVC_TOKEN: world.as[who]!.replace(/^Bearer /, '') } });
  beforeAll(async () => {
    configHome = await mkdtemp(join(tmpdir(), 'svc-cli-inventory-'));
  });
  afterAll(() => rm(configHome, { recursive: true, force: true }));

  it('lists, syncs and shows the history, as tables or JSON; a refused caller exits 5', async () => {
    const providerId = `netbox:dc1:${world.ids.acme}`;
    const list = await svc('alice', ['inventory-providers', 'list', '--json']);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout).items.map((p: { provider_id: string }) => p.provider_id)).toContain(providerId);
    const table = await svc('alice', ['inventory-providers', 'list']);
    expect(table.stdout).toContain('PROVIDER ID');
    const synced = await svc('alice', ['inventory-providers', 'sync', providerId, '--incremental', '--json']);
    expect(synced.code, synced.stderr).toBe(0);
    expect(JSON.parse(synced.stdout)).toMatchObject({ status: 'succeeded', mode: 'incremental' });
    const history = await svc('alice', ['inventory-providers', 'history', providerId, '--json']);
    expect(JSON.parse(history.stdout).items[0].mode).toBe('incremental');
    const refused = await svc('dave', ['inventory-providers', 'sync', providerId]);
    expect(refused.code).toBe(5);
    const unknown = await svc('alice', ['inventory-providers', 'history', 'netbox:nope']);
    expect(unknown.code).toBe(3);
  });
  it('creates, changes and deletes a provider; bad configuration is 422 and stores nothing; nothing to change is exit 2', async () => {
    const providerId = `netbox:cli:${world.ids.acme}`;
    const row = () => knex()('inventory_providers').where({ provider_id: providerId }).first();
    const config = JSON.stringify({ url: world.netbox.url });
    const refused = await svc('dave', [
      'inventory-providers',
      'create',
      'netbox',
      'cli',
      '--config',
      config,
      '--credential',
      world.tokenRef,
    ]);
    expect(refused.code).toBe(5);
    const invalid = await svc('alice', [
      'inventory-providers',
      'create',
      'netbox',
      'cli',
      '--config',
      '{}',
      '--credential',
      world.tokenRef,
    ]);
    expect(invalid.code).toBe(1);
    expect(await row()).toBeUndefined();

    const created = await svc('alice', [
      ...['inventory-providers', 'create', 'netbox', 'cli', '--config', config],
      ...['--credential', world.tokenRef, '--description', 'lab', '--disabled'],
    ]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toBe(`${providerId}\n`);
    expect(await row()).toMatchObject({ type: 'netbox', enabled: false, description: 'lab' });

    const changed = await svc('alice', ['inventory-providers', 'update', providerId, '--enable', '--description', '', '--json']);
    expect(changed.code, changed.stderr).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ provider_id: providerId, enabled: true, description: null });
    expect((await svc('alice', ['inventory-providers', 'update', providerId])).code).toBe(2);
    expect((await svc('alice', ['inventory-providers', 'update', providerId, '--config', '[1]'])).code).toBe(2);

    const deleted = await svc('alice', ['inventory-providers', 'delete', providerId, '--yes', '--json']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toEqual({ id: providerId, deleted: true });
    expect((await row()).deleted_at).not.toBeNull();
  });
});
