import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigExchangeEngine, Org } from '../src/daemon/domains/config-exchange/engine/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg } from './helpers/seed.js';
import { operator } from './helpers/config-exchange-installations.js';

/**
 * The schedules family between two installations: every setting, the flow by name (here from the same
 * bundle), targets as device names; the next fire time is the target's own.
 */

interface Installation {
  readonly daemon: TestDaemon;
  readonly engine: ConfigExchangeEngine;
  readonly acme: Org;
  readonly devices: Record<string, string>;
}

const FAMILIES = ['flows', 'schedules'];
const DEFINITION = { steps: [{ id: 'one', handler: 'general.noop', config: {} }], edges: [], inputs: [], target_roles: [] };
let one: Installation;
let two: Installation;

async function install(): Promise<Installation> {
  const daemon = await startTestDaemon();
  const knex = daemon.services.db.knex;
  const id = await seedOrg(knex, 'acme', 'Acme');
  const rows = await knex('devices')
    .insert(['r2', 'r1'].map((name) => ({ org_id: id, name })))
    .returning(['id', 'name']);
  const devices = Object.fromEntries(rows.map((r: { id: string; name: string }) => [r.name, r.id]));
  return { daemon, engine: daemon.configExchange.engine, acme: { id, slug: 'acme' }, devices };
}

const planOf = (target: Installation, yaml: string, id: string) =>
  target.engine.plan(target.engine.parse(yaml), { planId: id, org: target.acme, families: FAMILIES, prune: false });

beforeAll(async () => {
  [one, two] = await Promise.all([install(), install()]);
  const knex = one.daemon.services.db.knex;
  const [flow] = await knex('flows')
    .insert({ org_id: one.acme.id, name: 'backup', draft_json: JSON.stringify(DEFINITION), latest_version: 1, draft_dirty: false })
    .returning('id');
  await knex('flow_versions').insert({ flow_id: flow.id, version: 1, definition_json: JSON.stringify(DEFINITION) });
  await knex('schedules').insert([
    {
      org_id: one.acme.id,
      name: 'nightly',
      description: 'Configs',
      flow_id: flow.id,
      flow_version: 1,
      cron: '0 2 * * *',
      timezone: 'Europe/Berlin',
      params_json: JSON.stringify({ ticket: 'CHG1' }),
      targets_json: JSON.stringify({ routers: [one.devices.r2, one.devices.r1] }),
      misfire_policy: 'all',
    },
    { org_id: one.acme.id, name: 'paused', flow_id: flow.id, cron: '*/5 * * * *', enabled: false },
  ]);
});
afterAll(async () => {
  await Promise.all([one?.daemon.close(), two?.daemon.close()]);
});

describe('configuration exchange: schedules', () => {
  it('round-trips every setting with its flow (from the same bundle) and targets by device name', async () => {
    const exported = await one.engine.export({ org: one.acme, families: FAMILIES });
    expect(exported.yaml).toContain('- r1\n');
    const plan = await planOf(two, exported.yaml, '00000000-0000-4000-8000-000000000001');
    expect(plan.changes.map((c) => [c.family, c.key, c.action])).toEqual([
      ['flows', 'backup', 'create'],
      ['schedules', 'nightly', 'create'],
      ['schedules', 'paused', 'create'],
    ]);
    await two.engine.apply(plan, two.acme, operator(plan.plan_id));
    expect((await two.engine.export({ org: two.acme, families: FAMILIES })).yaml).toBe(exported.yaml);

    const knex = two.daemon.services.db.knex;
    const nightly = await knex('schedules').where({ org_id: two.acme.id, name: 'nightly' }).first();
    expect(nightly.targets_json).toEqual({ routers: [two.devices.r1, two.devices.r2] });
    expect(nightly.next_fire_at).not.toBeNull();
    expect(await knex('schedules').where({ name: 'paused' }).first('next_fire_at')).toEqual({ next_fire_at: null });
    const audit = await knex('audit_logs')
      .whereRaw(`details_json->>'correlation_id' = ?`, [plan.plan_id])
      .where({ resource_type: 'schedule' });
    expect(audit.map((a) => a.event_type)).toEqual(['entity.created', 'entity.created']);
  });

  it('plans exactly an edit of the expression', async () => {
    const exported = await one.engine.export({ org: one.acme, families: FAMILIES });
    const plan = await planOf(two, exported.yaml.replace('0 2 * * *', '30 3 * * *'), 'p-edit');
    expect(plan.changes.map((c) => [c.key, c.action, c.diffs])).toEqual([
      ['nightly', 'update', [{ path: 'cron', before: '0 2 * * *', after: '30 3 * * *' }]],
    ]);
  });

  it('reads a zone in the wrong case as the schedules API stores it: no change planned', async () => {
    const exported = await one.engine.export({ org: one.acme, families: FAMILIES });
    const plan = await planOf(two, exported.yaml.replace('Europe/Berlin', 'europe/BERLIN'), 'p-zone-case');
    expect(plan.changes).toEqual([]);
  });

  it('refuses a bundle whose expression never parses, with its path', async () => {
    const bundle = 'version: 1\norg: acme\nschedules:\n  - name: bad\n    flow: backup\n    cron: 61 * * * *\n';
    const refusal = (() => {
      try {
        return planOf(two, bundle, 'p-bad');
      } catch (error) {
        return Promise.reject(error);
      }
    })();
    await expect(refusal).rejects.toMatchObject({ code: 'bundle_invalid' });
    expect(await two.daemon.services.db.knex('schedules').where({ name: 'bad' })).toHaveLength(0);
  });

  it("resolves a schedule's flow in the shared organization, as the schedules API allows one there", async () => {
    const knex = two.daemon.services.db.knex;
    const commons = await knex('organizations').insert({ slug: 'commons', name: 'Commons', is_shared: true }).returning('id');
    const [flow] = await knex('flows')
      .insert({ org_id: commons[0].id, name: 'audit-all', draft_json: JSON.stringify(DEFINITION), latest_version: 1, draft_dirty: false })
      .returning('id');
    await knex('flow_versions').insert({ flow_id: flow.id, version: 1, definition_json: JSON.stringify(DEFINITION) });
    const bundle = 'version: 1\norg: acme\nschedules:\n  - name: weekly-audit\n    flow: audit-all\n    cron: 0 4 * * 1\n';
    const plan = await planOf(two, bundle, '00000000-0000-4000-8000-000000000002');
    expect(plan.changes.map((c) => [c.key, c.action])).toEqual([['weekly-audit', 'create']]);
    await two.engine.apply(plan, two.acme, operator(plan.plan_id));
    expect(await knex('schedules').where({ org_id: two.acme.id, name: 'weekly-audit' }).first('flow_id')).toEqual({ flow_id: flow.id });
  });

  it('refuses to exchange two live schedules of one name (409 duplicate_name), which a bundle could not tell apart', async () => {
    const knex = two.daemon.services.db.knex;
    await knex('schedules').insert([
      { org_id: two.acme.id, name: 'twin', cron: '0 1 * * *' },
      { org_id: two.acme.id, name: 'twin', cron: '0 3 * * *' },
    ]);
    await expect(two.engine.export({ org: two.acme, families: ['schedules'] })).rejects.toMatchObject({
      code: 'bundle_item_refused',
      extensions: expect.objectContaining({ reason: 'duplicate_name', key: 'twin' }),
    });
  });
});
