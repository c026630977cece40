import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { netboxDevice } from './helpers/netbox-fixture.js';
import {
  createNetboxProvider,
  providerPath,
  seedNetbox,
  startProviderWorld,
  sync,
  type ProviderWorld,
} from './helpers/inventory-providers-fixtures.js';
import { BARE, TARGETED, call, seedFlow } from './helpers/webhooks-fixtures.js';

/**
 * Provider sync against the NetBox-shaped fixture server: the first sync imports, a change updates, a
 * removal marks stale, a return restores, incremental reads only what changed, a failed page is recorded
 * and resumed, transient failures are retried, two syncs of one provider never run together, purge
 * removes everything imported, and an imported device is a run target.
 */

let world: ProviderWorld;
let providerId: string;
const knex = () => world.knex();

const SITES = 3;
const DEVICES = 120;

beforeAll(async () => {
  world = await startProviderWorld();
  seedNetbox(world.netbox, { sites: SITES, devices: DEVICES, vlans: 2 });
  providerId = (await createNetboxProvider(world, 'dc1', { object_types: ['vlan'] })).provider_id;
});
afterAll(() => world?.close());

const imported = (table: string) => knex()(table).where({ org_id: world.ids.acme, provider_id: providerId });
const live = async (table: string) => Number((await imported(table).whereNull('deleted_at').count({ n: '*' }))[0]!.n);
const deviceRow = (externalId: number) =>
  imported('devices')
    .where({ external_id: String(externalId) })
    .first();

describe('a first sync', () => {
  it('imports every site, device and VLAN over the pages, with the token, and records the sync', async () => {
    world.netbox.requests.length = 0;
    const answer = await sync(world, providerId);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ status: 'succeeded', mode: 'full', provider_id: providerId, error: null });
    expect(answer.body.counts.sites).toMatchObject({ created: SITES, updated: 0, stale: 0 });
    expect(answer.body.counts.devices).toMatchObject({ created: DEVICES, updated: 0, stale: 0, skipped: 0 });
    expect(answer.body.counts.objects).toMatchObject({ created: 2 });
    expect(await live('sites')).toBe(SITES);
    expect(await live('devices')).toBe(DEVICES);
    // Three pages of devices, the later ones through the absolute `next` links.
    expect(world.netbox.requests.filter((r) => r.startsWith('/api/dcim/devices/'))).toHaveLength(3);
    expect(world.netbox.requests).toContain('/api/dcim/devices/?limit=50&offset=100');
    expect(new Set(world.netbox.authorizations)).toEqual(new Set([`Token ${world.netbox.token}`]));
  });

  it('links each device to its imported site and keeps the provider fields', async () => {
    const device = await deviceRow(4);
    const site = await imported('sites').where({ external_id: '1' }).first();
    expect(device).toMatchObject({
      name: 'dev-4',
      hostname: '10.0.0.5',
      platform: 'ios-xe',
      role: 'core',
      serial: 'SN4',
      site_id: site.id,
    });
    expect(device.tags).toEqual(['lab']);
  });

  it('answers the device as provider-managed: its own fields refuse a change (409), its overlay takes one', async () => {
    const device = await deviceRow(4);
    const put = await call(world, 'alice', 'PUT', `/devices/${device.id}`, { name: 'renamed' });
    expect(put.status).toBe(409);
    expect(put.body.code).toBe('provider_managed');
    const overlay = await call(world, 'dave', 'PATCH', `/devices/${device.id}/overlay`, { tags: ['local'] });
    expect(overlay.status).toBe(200);
  });

  it('lists the sync in the history and on the provider', async () => {
    const history = await call(world, 'alice', 'GET', providerPath(providerId, '/sync-history'));
    expect(history.status).toBe(200);
    expect(history.body.total).toBe(1);
    expect(history.body.items[0]).toMatchObject({ status: 'succeeded', provider_id: providerId });
    const provider = await call(world, 'alice', 'GET', providerPath(providerId));
    expect(provider.body.last_sync).toMatchObject({ status: 'succeeded', id: history.body.items[0].id });
    expect(provider.body.sync_watermark).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('later syncs follow the provider', () => {
  it('updates a changed device and leaves the rest unchanged', async () => {
    const before = await deviceRow(5);
    world.netbox.devices.set(5, netboxDevice(5, 'dev-5-renamed', 2, { platform: { slug: 'eos' } }));
    const answer = await sync(world, providerId);
    expect(answer.status).toBe(200);
    expect(answer.body.counts.devices).toMatchObject({ created: 0, updated: 1, unchanged: DEVICES - 1, stale: 0 });
    const after = await deviceRow(5);
    expect(after).toMatchObject({ id: before.id, name: 'dev-5-renamed', platform: 'eos' });
    // The overlay set locally survives the provider's update of the device's own fields.
    expect((await deviceRow(4)).overlay_json).toEqual({ tags: ['local'] });
  });

  it('marks a removed device and VLAN stale (soft-deleted by the sync), and no longer answers the device', async () => {
    world.netbox.devices.delete(7);
    world.netbox.vlans.delete(2);
    const answer = await sync(world, providerId);
    expect(answer.body.counts.devices).toMatchObject({ stale: 1, created: 0 });
    expect(answer.body.counts.objects).toMatchObject({ stale: 1 });
    const stale = await deviceRow(7);
    expect(stale.deleted_at).not.toBeNull();
    expect(stale.deleted_by).toBe(`inventory-sync:${providerId}`);
    expect((await call(world, 'alice', 'GET', `/devices/${stale.id}`)).status).toBe(404);
    const vlans = await call(world, 'dave', 'GET', '/inventory/objects/vlan?include_stale=true');
    expect(vlans.body.items.map((v: { name: string; stale: boolean }) => [v.name, v.stale])).toEqual([
      ['vlan-1', false],
      ['vlan-2', true],
    ]);
  });

  it('restores the same row when the device returns', async () => {
    const before = await deviceRow(7);
    world.netbox.devices.set(7, netboxDevice(7, 'dev-7', 1));
    const answer = await sync(world, providerId);
    expect(answer.body.counts.devices).toMatchObject({ restored: 1, stale: 0, created: 0 });
    const after = await deviceRow(7);
    expect(after).toMatchObject({ id: before.id, deleted_at: null });
  });

  it('skips a device whose name a local device holds, importing the rest', async () => {
    await knex()('devices').insert({ org_id: world.ids.acme, name: 'taken-name' });
    world.netbox.devices.set(500, netboxDevice(500, 'taken-name', 1));
    const answer = await sync(world, providerId);
    expect(answer.body.counts.devices).toMatchObject({ skipped: 1, created: 0 });
    world.netbox.devices.delete(500);
  });

  it('incremental: asks only for what changed since the watermark, and marks nothing stale', async () => {
    world.netbox.devices.set(8, netboxDevice(8, 'dev-8', 1, { serial: 'NEW8', last_updated: '2026-02-01T00:00:00Z' }));
    world.netbox.devices.delete(9);
    world.netbox.requests.length = 0;
    const answer = await sync(world, providerId, { mode: 'incremental' });
    expect(answer.status).toBe(200);
    expect(answer.body.mode).toBe('incremental');
    expect(world.netbox.requests.some((r) => r.startsWith('/api/dcim/devices/') && r.includes('last_updated__gte=2026-01-01'))).toBe(true);
    expect(answer.body.counts.devices.stale).toBe(0);
    expect((await deviceRow(8)).serial).toBe('NEW8');
    expect((await deviceRow(9)).deleted_at).toBeNull();
    world.netbox.devices.set(9, netboxDevice(9, 'dev-9', 3));
  });
});

describe('failures', () => {
  it('retries a 500 and a 429 page, and a page slower than the time limit', async () => {
    world.netbox.faults.push({ path: '/api/dcim/devices/', offset: 50, kind: '500', times: 1 });
    world.netbox.faults.push({ path: '/api/dcim/sites/', offset: 0, kind: '429', times: 1 });
    const answer = await sync(world, providerId);
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('succeeded');
    const slow = await createNetboxProvider(world, 'slow', { timeout_ms: 300 });
    world.netbox.faults.push({ path: '/api/dcim/sites/', offset: 0, kind: 'slow', delayMs: 1500, times: 1 });
    const retried = await sync(world, slow.provider_id);
    expect(retried.status).toBe(200);
    expect(retried.body.counts.sites.skipped).toBe(SITES); // the names are dc1's
    await call(world, 'alice', 'DELETE', providerPath(slow.provider_id, '/permanent'));
  });

  it('records a page that keeps failing, keeps the pages before it, and resumes there next time', async () => {
    world.netbox.faults.length = 0;
    const fault = { path: '/api/dcim/devices/', offset: 50, kind: '500' as const, times: Infinity };
    world.netbox.faults.push(fault);
    world.netbox.devices.set(1, netboxDevice(1, 'dev-1-changed', 1));
    const failed = await sync(world, providerId);
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ code: 'provider_request_failed', reason: 'upstream_status', phase: 'devices' });
    const history = await call(world, 'alice', 'GET', providerPath(providerId, '/sync-history?status=failed'));
    expect(history.body.items[0]).toMatchObject({ id: failed.body.sync_id, status: 'failed' });
    expect(history.body.items[0].error).toMatchObject({ code: 'upstream_status', phase: 'devices' });
    expect(history.body.items[0].error.page).toContain('offset=50');
    expect(history.body.items[0].counts.devices.updated).toBe(1); // the first page was applied
    expect((await deviceRow(1)).name).toBe('dev-1-changed');

    fault.times = 0;
    world.netbox.requests.length = 0;
    const resumed = await sync(world, providerId);
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ status: 'succeeded', resumed_from: failed.body.sync_id });
    expect(world.netbox.requests.some((r) => r.startsWith('/api/dcim/devices/?limit=50&offset=0'))).toBe(false);
    expect(world.netbox.requests.some((r) => r.startsWith('/api/dcim/sites/'))).toBe(false);
    // The rows the failed part saw count as seen: nothing is marked stale wrongly.
    expect(resumed.body.counts.devices.stale).toBe(0);
    expect(await live('devices')).toBe(DEVICES);
  });

  it('answers 401 from the provider as auth_failed in test-connection and refuses nothing else', async () => {
    world.netbox.token = 'rotated-token';
    const report = await call(world, 'alice', 'POST', providerPath(providerId, '/test-connection'));
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ ok: false, error: { code: 'auth_failed' } });
    const failed = await sync(world, providerId);
    expect(failed.status).toBe(502);
    expect(failed.body.reason).toBe('auth_failed');
    world.netbox.token = 'nb-token-0123456789';
    expect((await sync(world, providerId)).status).toBe(200);
  });
});

describe('a provider whose next page is the page itself', () => {
  it('fails the sync as malformed_answer instead of reading the same page for ever', async () => {
    const fault = { path: '/api/dcim/devices/', offset: 50, kind: 'first_page' as const, times: Infinity };
    world.netbox.faults.push(fault);
    try {
      const answer = await sync(world, providerId);
      expect(answer.status).toBe(502);
      expect(answer.body).toMatchObject({ code: 'provider_request_failed', reason: 'malformed_answer', phase: 'devices' });
      expect(world.netbox.requests.filter((r) => r.startsWith('/api/dcim/devices/') && r.includes('offset=50')).length).toBeLessThan(5);
    } finally {
      fault.times = 0;
    }
    expect((await sync(world, providerId)).status).toBe(200);
  });
});

describe('one sync of a provider at a time', () => {
  it('answers a second sync 409 while the first runs, then lets the next one run', async () => {
    world.netbox.faults.push({ path: '/api/dcim/devices/', offset: 0, kind: 'slow', delayMs: 1000, times: 1 });
    const first = sync(world, providerId);
    const provider = await knex()('inventory_providers').where({ provider_id: providerId }).first('id');
    await waitFor(
      async () => (await knex()('inventory_sync_runs').where({ provider_row_id: provider.id, status: 'running' }).first()) !== undefined,
    );
    const second = await sync(world, providerId);
    expect(second.status).toBe(409);
    expect(second.body.code).toBe('inventory_sync_running');
    expect((await first).status).toBe(200);
    expect((await sync(world, providerId)).status).toBe(200);
  });
});

describe('a sync whose instance died', () => {
  it('is failed as abandoned once its lease is over, and the next sync runs', async () => {
    const provider = await knex()('inventory_providers').where({ provider_id: providerId }).first('id');
    const [dead] = await knex()('inventory_sync_runs')
      .insert({
        provider_row_id: provider.id,
        org_id: world.ids.acme,
        mode: 'full',
        status: 'running',
        pass_started_at: new Date('2026-01-01T00:00:00Z'),
        heartbeat_at: new Date(Date.now() - 3_600_000),
      })
      .returning('id');
    const answer = await sync(world, providerId);
    expect(answer.status).toBe(200);
    const row = await knex()('inventory_sync_runs').where({ id: dead.id }).first();
    expect(row.status).toBe('failed');
    expect(row.error_json.code).toBe('abandoned');
  });
});

describe('provider text PostgreSQL cannot store', () => {
  it('imports a device and a VLAN whose JSON holds NUL or an unpaired surrogate without them, and the sync ends', async () => {
    world.netbox.devices.set(900, netboxDevice(900, 'dev-nul', 1, { custom_fields: { note: 'a\u0000b', ['k\u0000']: 'x\ud800y' } }));
    world.netbox.vlans.set(900, { id: 900, name: 'vlan-nul', vid: 900, description: 'v\u0000', last_updated: '2026-01-01T00:00:00Z' });
    const answer = await sync(world, providerId);
    expect(answer.status).toBe(200);
    expect(answer.body.status).toBe('succeeded');
    const device = await deviceRow(900);
    expect(device.attributes_json.custom_fields).toEqual({ note: 'ab', k: 'x\ufffdy' });
    const vlan = await imported('inventory_objects').where({ object_type: 'vlan', external_id: '900' }).first();
    expect(vlan.data_json.description).toBe('v');
    const provider = await knex()('inventory_providers').where({ provider_id: providerId }).first('id');
    expect(await knex()('inventory_sync_runs').where({ provider_row_id: provider.id, status: 'running' })).toHaveLength(0);
    world.netbox.devices.delete(900);
    world.netbox.vlans.delete(900);
  });
});

describe('a page the database refuses', () => {
  it('fails the sync, recorded with its phase, instead of leaving it running; the next sync resumes there', async () => {
    await knex().raw("alter table inventory_objects add constraint test_refuses_vlan check (name <> 'vlan-refused')");
    world.netbox.vlans.set(901, { id: 901, name: 'vlan-refused', vid: 901, last_updated: '2026-01-01T00:00:00Z' });
    try {
      const refused = await sync(world, providerId);
      expect(refused.status).not.toBe(200);
      const history = await call(world, 'alice', 'GET', providerPath(providerId, '/sync-history?limit=1'));
      expect(history.body.items[0]).toMatchObject({ status: 'failed', error: { phase: 'objects:vlan' } });
      const provider = await knex()('inventory_providers').where({ provider_id: providerId }).first('id');
      expect(await knex()('inventory_sync_runs').where({ provider_row_id: provider.id, status: 'running' })).toHaveLength(0);
      await knex().raw('alter table inventory_objects drop constraint test_refuses_vlan');
      const next = await sync(world, providerId);
      expect(next.status).toBe(200);
      expect(next.body).toMatchObject({ status: 'succeeded', resumed_from: history.body.items[0].id });
    } finally {
      await knex().raw('alter table inventory_objects drop constraint if exists test_refuses_vlan');
      world.netbox.vlans.delete(901);
    }
  });
});

describe('a run targets an imported device', () => {
  it('admits a run naming the device by id', async () => {
    const flow = await seedFlow(knex(), world.ids.acme!, { name: 'on-imported', versions: [BARE, TARGETED] });
    const device = await deviceRow(10);
    const run = await call(world, 'alice', 'POST', '/runs', { flow_id: flow, targets: { routers: [device.id] } });
    expect(run.status).toBe(201);
  });
});

describe('purge', () => {
  it('removes every site, device and object the provider imported, for good, audited; the provider stays', async () => {
    const answer = await call(world, 'alice', 'POST', providerPath(providerId, '/purge-inventory'));
    expect(answer.status).toBe(200);
    expect(answer.body.removed.devices).toBeGreaterThanOrEqual(DEVICES);
    expect(Number((await imported('devices').count({ n: '*' }))[0]!.n)).toBe(0);
    expect(Number((await imported('sites').count({ n: '*' }))[0]!.n)).toBe(0);
    expect(Number((await imported('inventory_objects').count({ n: '*' }))[0]!.n)).toBe(0);
    const audits = await knex()('audit_logs').where({ event_type: 'inventory_provider.inventory_purged' });
    expect(audits).toHaveLength(1);
    expect((await call(world, 'alice', 'GET', providerPath(providerId))).status).toBe(200);
    expect((await call(world, 'dave', 'POST', providerPath(providerId, '/purge-inventory'))).status).toBe(403);
  });
});

describe('permanent delete while a sync runs', () => {
  it('is refused 409 inventory_sync_running, so the sync cannot leave rows of a provider that is gone', async () => {
    expect((await sync(world, providerId)).status).toBe(200);
    world.netbox.faults.push({ path: '/api/dcim/devices/', offset: 0, kind: 'slow', delayMs: 1000, times: 1 });
    const running = sync(world, providerId);
    const provider = await knex()('inventory_providers').where({ provider_id: providerId }).first('id');
    await waitFor(
      async () => (await knex()('inventory_sync_runs').where({ provider_row_id: provider.id, status: 'running' }).first()) !== undefined,
    );
    const refused = await call(world, 'alice', 'DELETE', providerPath(providerId, '/permanent'));
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('inventory_sync_running');
    expect((await running).status).toBe(200);
    expect((await call(world, 'alice', 'DELETE', providerPath(providerId, '/permanent'))).status).toBe(204);
    expect(await imported('devices').first()).toBeUndefined();
    expect(await imported('sites').first()).toBeUndefined();
  });
});

async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('condition not met');
}
