import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exported, install, operator, planAndApply, type Installation } from './helpers/config-exchange-installations.js';

/**
 * The `organizations` (platform) and `idp_mappings` (organization) families: organizations travel by
 * slug and are never pruned, the shared mark moves, mappings travel by claim and value and reach the
 * login-time index as soon as the apply commits.
 */

let one: Installation;
let two: Installation;

beforeAll(async () => {
  [one, two] = await Promise.all([install(), install()]);
  const knex = one.daemon.services.db.knex;
  await knex('organizations').insert([
    {
      slug: 'globex',
      name: 'Globex',
      description: 'subsidiary',
      settings_json: JSON.stringify({ timezone: 'Europe/Paris' }),
      is_shared: true,
    },
    { slug: 'initech', name: 'Initech', is_active: false },
  ]);
  await knex('org_idp_mappings').insert([
    { org_id: one.acme.id, claim: 'groups', value: '/netops', role: 'admin' },
    { org_id: one.acme.id, claim: 'groups', value: '/noc', role: 'viewer', is_active: false },
  ]);
  // The target's shared organization loses the mark to the bundle's.
  await two.daemon.services.db.knex('organizations').insert({ slug: 'common', name: 'Common', is_shared: true });
});
afterAll(async () => {
  await Promise.all([one?.daemon.close(), two?.daemon.close()]);
});

describe('configuration exchange: organizations and IdP mappings', () => {
  it('round-trips organizations (the shared mark moving) and refuses to prune one', async () => {
    const yaml = (await one.engine.export({ org: undefined, families: ['organizations'] })).yaml;
    expect(yaml).not.toContain('is_default');
    const plan = await two.engine.plan(two.engine.parse(yaml), {
      planId: '00000000-0000-4000-a000-000000000001',
      org: undefined,
      prune: false,
    });
    expect(plan.changes.map((c) => [c.key, c.action])).toEqual([
      ['globex', 'create'],
      ['initech', 'create'],
    ]);
    await two.engine.apply(plan, undefined, operator(plan.plan_id));
    const shared = await two.daemon.services.db.knex('organizations').where({ is_shared: true }).select('slug');
    expect(shared).toEqual([{ slug: 'globex' }]);
    expect(await two.engine.export({ org: undefined, families: ['organizations'] })).toMatchObject({
      yaml: expect.stringContaining('timezone: Europe/Paris'),
    });
    const pruning = await two.engine.plan(two.engine.parse(yaml), {
      planId: '00000000-0000-4000-a000-000000000002',
      org: undefined,
      prune: true,
    });
    expect(pruning.changes.map((c) => [c.key, c.action])).toEqual([['common', 'delete']]);
    await expect(two.engine.apply(pruning, undefined, operator('x'))).rejects.toMatchObject({
      code: 'bundle_item_refused',
      extensions: expect.objectContaining({ reason: 'organizations_not_pruned' }),
    });
    expect(await two.daemon.services.db.knex('organizations').where({ slug: 'common' })).toHaveLength(1);
  });

  it('refuses a bundle marking two organizations shared (422 bundle_invalid at the second), which no apply could meet', async () => {
    const yaml = [
      'version: 1',
      'organizations:',
      '  - slug: globex',
      '    name: Globex',
      '    is_shared: true',
      '  - slug: initech',
      '    name: Initech',
      '    is_shared: true',
      '',
    ].join('\n');
    let thrown: unknown;
    try {
      two.engine.parse(yaml);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({
      code: 'bundle_invalid',
      extensions: { errors: [expect.objectContaining({ path: 'organizations[1].is_shared', line: 8 })] },
    });
  });

  it("refuses to create an organization of a deleted one's slug (bundle_item_refused, org_slug_retired), nothing created", async () => {
    const knex = two.daemon.services.db.knex;
    await knex('retired_org_slugs').insert({ slug: 'hooli', org_id: '00000000-0000-4000-a000-0000000000aa' });
    const yaml = ['version: 1', 'organizations:', '  - slug: hooli', '    name: Hooli', ''].join('\n');
    const plan = await two.engine.plan(two.engine.parse(yaml), {
      planId: '00000000-0000-4000-a000-000000000003',
      org: undefined,
      prune: false,
    });
    expect(plan.changes.map((c) => [c.key, c.action])).toEqual([['hooli', 'create']]);
    await expect(two.engine.apply(plan, undefined, operator(plan.plan_id))).rejects.toMatchObject({
      code: 'bundle_item_refused',
      extensions: expect.objectContaining({ reason: 'org_slug_retired' }),
    });
    expect(await knex('organizations').where({ slug: 'hooli' })).toEqual([]);
  });

  it('stores an organization name trimmed, as the API does, and plans nothing for the same bundle again', async () => {
    const knex = two.daemon.services.db.knex;
    const yaml = ['version: 1', 'organizations:', '  - slug: spaced', "    name: '  Spaced Out  '", ''].join('\n');
    const plan = await two.engine.plan(two.engine.parse(yaml), {
      planId: '00000000-0000-4000-a000-000000000004',
      org: undefined,
      prune: false,
    });
    await two.engine.apply(plan, undefined, operator(plan.plan_id));
    expect(await knex('organizations').where({ slug: 'spaced' }).first('name')).toEqual({ name: 'Spaced Out' });
    const again = await two.engine.plan(two.engine.parse(yaml), {
      planId: '00000000-0000-4000-a000-000000000005',
      org: undefined,
      prune: false,
    });
    expect(again.changes).toEqual([]);
  });

  it('round-trips IdP mappings, which the login index knows at once, and plans exactly an edit', async () => {
    const yaml = await exported(one, ['idp_mappings']);
    const index = two.daemon.services.mappingIndex;
    await index.refresh();
    expect(await index.match('groups', ['/netops'])).toHaveLength(0);
    await planAndApply(two, yaml);
    expect(await index.match('groups', ['/netops'])).toEqual([expect.objectContaining({ role: 'admin' })]);
    expect(await exported(two, ['idp_mappings'])).toBe(yaml);
    expect(await two.daemon.services.db.knex('audit_logs').where({ event_type: 'idp_mapping.created' })).toHaveLength(2);
    const edited = yaml.replace('role: viewer', 'role: operator');
    const plan = await two.engine.plan(two.engine.parse(edited), { planId: 'i1', org: two.acme, prune: false });
    expect(plan.changes.map((c) => [c.key, c.diffs])).toEqual([['groups=/noc', [{ path: 'role', before: 'viewer', after: 'operator' }]]]);
  });
});
