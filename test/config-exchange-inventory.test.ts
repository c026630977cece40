import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exported, install, planAndApply, type Installation } from './helpers/config-exchange-installations.js';

/**
 * The `sites` and `devices` families: a site tree and its devices travel by name, provider-sourced rows
 * stay home, and what one installation exports another takes and exports back as the same text.
 */

const FAMILIES = ['sites', 'devices'];
let one: Installation;
let two: Installation;

beforeAll(async () => {
  [one, two] = await Promise.all([install(), install()]);
  const knex = one.daemon.services.db.knex;
  const org_id = one.acme.id;
  // Children named before their parents in key order: the apply must still create parents first.
  const [world] = await knex('sites')
    .insert({ org_id, name: 'zz-world', tags: JSON.stringify(['root']) })
    .returning('id');
  const [emea] = await knex('sites').insert({ org_id, name: 'emea', parent_id: world.id, address: 'Paris' }).returning('id');
  const [dc] = await knex('sites').insert({ org_id, name: 'a-dc1', parent_id: emea.id, description: 'first' }).returning('id');
  await knex('sites').insert({ org_id, name: 'synced', provider_id: 'netbox', external_id: '7' });
  await knex('devices').insert([
    { org_id, name: 'r1', hostname: '10.0.0.1', platform: 'ios', site_id: dc.id, attributes_json: JSON.stringify({ rack: 4 }) },
    { org_id, name: 'r2', tags: JSON.stringify(['edge']) },
    { org_id, name: 'from-netbox', provider_id: 'netbox', external_id: '9' },
  ]);
});
afterAll(async () => {
  await Promise.all([one?.daemon.close(), two?.daemon.close()]);
});

describe('configuration exchange: sites and devices', () => {
  it('round-trips the site tree and devices, leaving provider-sourced rows out', async () => {
    const yaml = await exported(one, FAMILIES);
    expect(yaml).not.toContain('synced');
    expect(yaml).not.toContain('from-netbox');
    const { plan } = await planAndApply(two, yaml);
    expect(plan.changes.filter((c) => c.family === 'sites').map((c) => c.key)).toEqual(['zz-world', 'emea', 'a-dc1']);
    expect(plan.summary).toMatchObject({ add: 5, change: 0, destroy: 0 });
    expect(await exported(two, FAMILIES)).toBe(yaml);
    const knex = two.daemon.services.db.knex;
    const r1 = await knex('devices as d').join('sites as s', 's.id', 'd.site_id').where('d.name', 'r1').first('s.name');
    expect(r1.name).toBe('a-dc1');
    expect(await knex('audit_logs').where({ event_type: 'entity.created', resource_type: 'site' })).toHaveLength(3);
  });

  it('plans exactly an edit: a device moved to another site, a site re-parented', async () => {
    const yaml = (await exported(two, FAMILIES)).replace('site: a-dc1', 'site: emea').replace('parent: emea', 'parent: zz-world');
    const plan = await two.engine.plan(two.engine.parse(yaml), { planId: 'e1', org: two.acme, prune: false });
    expect(plan.changes.map((c) => [c.family, c.key, c.action, c.diffs])).toEqual([
      ['sites', 'a-dc1', 'update', [{ path: 'parent', before: 'emea', after: 'zz-world' }]],
      ['devices', 'r1', 'update', [{ path: 'site', before: 'a-dc1', after: 'emea' }]],
    ]);
  });

  it('prunes children before parents and refuses to prune a site that still holds a device', async () => {
    const yaml = await exported(two, FAMILIES);
    const onlyWorld = yaml.replace(
      /sites:\n[\s\S]*/,
      'sites:\n  - name: zz-world\n    parent: null\n    description: null\n    address: null\n    tags:\n      - root\n',
    );
    await expect(planAndApply(two, onlyWorld, { prune: true })).rejects.toMatchObject({
      code: 'bundle_item_refused',
      extensions: expect.objectContaining({ reason: 'in_use' }),
    });
    const withDevices = onlyWorld.replace('sites:', 'devices: []\nsites:');
    const { plan } = await planAndApply(two, withDevices, { prune: true });
    expect(plan.changes.map((c) => c.key)).toEqual(['r1', 'r2', 'a-dc1', 'emea']);
    const { document } = await two.engine.document({ org: two.acme, families: FAMILIES });
    expect(document).toMatchObject({ sites: [{ name: 'zz-world', tags: ['root'] }], devices: [] });
    expect(document.sites).toHaveLength(1);
  });

  it('refuses a bundle whose own sites name each other as parents in a loop (422 bundle_invalid at each parent)', async () => {
    const yaml =
      'version: 1\norg: acme\nsites:\n  - name: ring-a\n    parent: ring-b\n  - name: ring-b\n    parent: ring-a\n  - name: leaf\n    parent: ring-a\n';
    expect(() => two.engine.parse(yaml)).toThrow(
      expect.objectContaining({
        code: 'bundle_invalid',
        extensions: {
          errors: [
            expect.objectContaining({ path: 'sites[0].parent', line: 5 }),
            expect.objectContaining({ path: 'sites[1].parent', line: 7 }),
          ],
        },
      }),
    );
  });

  it('refuses a site or device naming a tag twice (422 bundle_invalid at its tags), which no apply could store as written', async () => {
    const yaml = [
      'version: 1',
      'org: acme',
      'sites:',
      '  - name: tagged',
      '    tags: [core, edge, core]',
      'devices:',
      '  - name: tagged-1',
      '    hostname: 192.0.2.10',
      '    tags: [lab, lab]',
      '',
    ].join('\n');
    expect(() => two.engine.parse(yaml)).toThrow(
      expect.objectContaining({
        code: 'bundle_invalid',
        extensions: {
          errors: [expect.objectContaining({ path: 'sites[0].tags' }), expect.objectContaining({ path: 'devices[0].tags' })],
        },
      }),
    );
  });

  it('refuses a bundle that re-parents sites into a loop (409 parent_cycle), changing nothing', async () => {
    const knex = two.daemon.services.db.knex;
    const org_id = two.acme.id;
    const [top] = await knex('sites').insert({ org_id, name: 'loop-top' }).returning('id');
    await knex('sites').insert({ org_id, name: 'loop-child', parent_id: top.id });
    const yaml = 'version: 1\norg: acme\nsites:\n  - name: loop-top\n    parent: loop-child\n';
    await expect(planAndApply(two, yaml)).rejects.toMatchObject({
      code: 'bundle_item_refused',
      extensions: expect.objectContaining({ reason: 'parent_cycle', key: 'loop-top' }),
    });
    expect((await knex('sites').where({ org_id, name: 'loop-top' }).first()).parent_id).toBeNull();
  });

  it('refuses a device naming a site neither the bundle nor the target holds, applying nothing', async () => {
    const yaml = 'version: 1\norg: acme\ndevices:\n  - name: lost\n    site: nowhere\n';
    await expect(planAndApply(two, yaml)).rejects.toMatchObject({ code: 'bundle_reference_unresolved' });
    expect(await two.daemon.services.db.knex('devices').where({ name: 'lost' })).toHaveLength(0);
  });
});
