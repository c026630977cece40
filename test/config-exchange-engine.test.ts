import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditContext } from '../src/daemon/audit/audit-context.js';
import { type ConfigExchangeEngine, type Org } from '../src/daemon/domains/config-exchange/engine/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg } from './helpers/seed.js';

/**
 * The engine alone (no HTTP): two installations, each a daemon on its own database. What is exported
 * from one and applied to the other exports back as the same text; plans show exactly what differs.
 */

interface Installation {
  readonly daemon: TestDaemon;
  readonly engine: ConfigExchangeEngine;
  readonly acme: Org;
}

let one: Installation;
let two: Installation;

async function install(): Promise<Installation> {
  const daemon = await startTestDaemon();
  const id = await seedOrg(daemon.services.db.knex, 'acme', 'Acme');
  return { daemon, engine: daemon.configExchange.engine, acme: { id, slug: 'acme' } };
}

function operator(correlationId: string) {
  const audit: AuditContext = {
    requestId: correlationId,
    route: 'POST /config-exchange/operations',
    clientIp: '127.0.0.1',
    userAgent: undefined,
    subject: 'sub-root',
    username: 'root',
  };
  return { correlationId, actor: { sub: 'sub-root', username: 'root' }, audit };
}

let seq = 0;
async function planAndApply(target: Installation, yaml: string, prune = false) {
  const id = `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`;
  const plan = await target.engine.plan(target.engine.parse(yaml), { planId: id, org: target.acme, prune });
  const result = await target.engine.apply(plan, target.acme, operator(id));
  return { plan, result };
}

beforeAll(async () => {
  [one, two] = await Promise.all([install(), install()]);
  const knex = one.daemon.services.db.knex;
  await knex('variables').insert([
    { org_id: one.acme.id, name: 'region', type: 'string', value_json: JSON.stringify('eu-west-1') },
    { org_id: one.acme.id, name: 'limits', type: 'json', value_json: JSON.stringify({ mtu: 9000, vlans: [10, 20] }), description: 'net' },
  ]);
  await knex('permission_action_overrides').insert({ action: 'run:trigger', policy: 'admin' });
  await knex('permission_overrides').insert({ method: 'GET', path: '/runs/{run_id}', policy: 'operator' });
});
afterAll(async () => {
  await Promise.all([one?.daemon.close(), two?.daemon.close()]);
});

describe('configuration exchange engine', () => {
  it('round-trips: export from one installation, apply to an empty one, export again gives the same YAML', async () => {
    const exported = await one.engine.export({ org: one.acme });
    expect(exported.families).toEqual([
      'permission_action_overrides',
      'permission_overrides',
      'variables',
      'secrets',
      'flows',
      'webhooks',
      'schedules',
    ]);
    expect(exported.yaml).toContain('run:trigger');
    const { plan } = await planAndApply(two, exported.yaml);
    expect(plan.summary).toMatchObject({ add: 4, change: 0, destroy: 0 });
    const again = await two.engine.export({ org: two.acme });
    expect(again.yaml).toBe(exported.yaml);
    const entries = await two.daemon.services.db.knex('audit_logs').where({ event_type: 'entity.created', resource_type: 'variable' });
    expect(entries).toHaveLength(2);
    expect(entries[0].details_json.correlation_id).toBe(plan.plan_id);
    // The override store took the applied overrides at once.
    expect(two.daemon.services.overrideStore.snapshot.actions.get('run:trigger')).toBe('admin');
  });

  it('plans exactly an edit, keeps items the bundle leaves out unless pruning', async () => {
    const exported = await one.engine.export({ org: one.acme });
    const edited = exported.yaml.replace('eu-west-1', 'eu-central-1').replace(/  - name: limits[\s\S]*?description: net\n/, '');
    const plan = await two.engine.plan(two.engine.parse(edited), { planId: 'p1', org: two.acme, prune: false });
    expect(plan.changes).toEqual([
      expect.objectContaining({
        family: 'variables',
        key: 'region',
        action: 'update',
        diffs: [{ path: 'value', before: 'eu-west-1', after: 'eu-central-1' }],
      }),
    ]);
    expect(plan.unmanaged).toEqual([{ family: 'variables', key: 'limits' }]);
    expect(plan.text).toContain('Plan: 0 to add, 1 to change, 0 to destroy.');
    const pruned = await two.engine.plan(two.engine.parse(edited), { planId: 'p2', org: two.acme, prune: true });
    expect(pruned.changes.map((c) => [c.action, c.key])).toEqual([
      ['update', 'region'],
      ['delete', 'limits'],
    ]);
  });
});

describe('configuration exchange engine: refusals', () => {
  const bundle = (names: string[]) =>
    `version: 1\norg: acme\nvariables:\n${names.map((n) => `  - name: ${n}\n    type: string\n    value: x\n`).join('')}`;

  it('refuses a plan whose rows changed since (409 stale_plan), applying nothing', async () => {
    const plan = await two.engine.plan(two.engine.parse(bundle(['stale_a'])), { planId: 's1', org: two.acme, prune: false });
    const knex = two.daemon.services.db.knex;
    await knex('variables')
      .where({ org_id: two.acme.id, name: 'region' })
      .update({ value_json: JSON.stringify('moved') });
    await expect(two.engine.apply(plan, two.acme, operator('s1'))).rejects.toMatchObject({ code: 'stale_plan' });
    expect(await knex('variables').where({ name: 'stale_a' })).toHaveLength(0);
  });

  it('applies all or nothing: a create failing on a constraint leaves every earlier change undone', async () => {
    const knex = two.daemon.services.db.knex;
    await knex.raw(`ALTER TABLE variables ADD CONSTRAINT test_refuse_zzz CHECK (name <> 'zzz')`);
    try {
      const plan = await two.engine.plan(two.engine.parse(bundle(['aaa', 'zzz'])), { planId: 'a1', org: two.acme, prune: false });
      expect(plan.changes.map((c) => c.key)).toEqual(['aaa', 'zzz']);
      await expect(two.engine.apply(plan, two.acme, operator('a1'))).rejects.toMatchObject({ code: '23514' });
      expect(await knex('variables').whereIn('name', ['aaa', 'zzz'])).toHaveLength(0);
      expect(await knex('audit_logs').whereRaw(`details_json->>'correlation_id' = 'a1'`)).toHaveLength(0);
    } finally {
      await knex.raw('ALTER TABLE variables DROP CONSTRAINT test_refuse_zzz');
    }
  });

  it('refuses a bundle with a YAML error or a schema error with its line, column and path', async () => {
    const syntax = () => two.engine.parse('version: 1\nvariables:\n  - name: a\n   type: string\n');
    expect(syntax).toThrow(expect.objectContaining({ code: 'bundle_invalid' }));
    try {
      two.engine.parse(
        'version: 1\norg: acme\nvariables:\n  - name: ok\n    type: string\n    value: x\n  - name: 1bad\n    type: colour\n    value: x\n    extra: 1\n',
      );
      expect.unreachable();
    } catch (error) {
      const errors = (error as { extensions: { errors: { path: string; line: number; column: number }[] } }).extensions.errors;
      expect(errors.map((e) => [e.path, e.line, e.column])).toEqual([
        ['variables[1].name', 7, 11],
        ['variables[1].type', 8, 11],
        ['variables[1].extra', 10, 5],
      ]);
    }
  });
});
