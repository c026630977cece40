import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finished, queue, run } from './helpers/config-exchange-fixtures.js';
import { call, startWorld, type World } from './helpers/webhooks-fixtures.js';

/** The routes: operations queued (202), claimed, run, cancelled; the synchronous reads; who may call them. */

let world: World;
const knex = () => world.knex();

beforeAll(async () => {
  world = await startWorld();
  await knex()('variables').insert({ org_id: world.ids.acme, name: 'region', type: 'string', value_json: JSON.stringify('eu-west-1') });
});
afterAll(() => world?.close());

describe('config exchange reads', () => {
  it('lists only working families, in apply order, with their scope', async () => {
    const answer = await call(world, 'root', 'GET', '/config-exchange/resource-families');
    expect(answer.status).toBe(200);
    expect(answer.body.items.map((f: { name: string; scope: string }) => [f.name, f.scope])).toEqual([
      ['permission_action_overrides', 'platform'],
      ['permission_overrides', 'platform'],
      ['variables', 'org'],
      ['secrets', 'org'],
      ['flows', 'org'],
      ['webhooks', 'org'],
      ['sites', 'org'],
      ['devices', 'org'],
      ['inventory_providers', 'org'],
      ['git_repositories', 'org'],
      ['file_repositories', 'org'],
      ['registry_credentials', 'org'],
      ['idp_mappings', 'org'],
      ['organizations', 'platform'],
      ['schedules', 'org'],
      ['notification_destinations', 'org'],
      ['notification_subscriptions', 'org'],
    ]);
    expect(answer.body.items[2].fields).toEqual(['name', 'type', 'value', 'description']);
  });

  it('answers the JSON Schema of a bundle, one property per family', async () => {
    const answer = await call(world, 'root', 'GET', '/config-exchange/schema');
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.body.properties)).toEqual(
      expect.arrayContaining(['version', 'org', 'variables', 'permission_overrides', 'sites', 'devices']),
    );
  });

  it('projects the current configuration as the bundle document', async () => {
    const answer = await call(world, 'root', 'GET', '/config-exchange/projection?org=acme&families=variables');
    expect(answer.status).toBe(200);
    expect(answer.body.bundle).toEqual({
      version: 1,
      org: 'acme',
      variables: [{ name: 'region', type: 'string', value: 'eu-west-1', description: null }],
    });
    const orphan = await call(world, 'root', 'GET', '/config-exchange/projection?families=variables');
    expect([orphan.status, orphan.body.code]).toEqual([422, 'validation_failed']);
  });

  it('is for platform admins only: an organization admin is refused 403', async () => {
    expect((await call(world, 'alice', 'GET', '/config-exchange/resource-families')).status).toBe(403);
    const refused = await call(world, 'alice', 'POST', '/config-exchange/operations', { mode: 'export', org: 'acme' });
    expect(refused.status).toBe(403);
  });
});

describe('config exchange operations', () => {
  it('queues (202), stays queued while no runner claims, cancels a queued one, and 409s a second cancel', async () => {
    await world.daemon.configExchange.runner.stop();
    try {
      const accepted = await call(world, 'root', 'POST', '/config-exchange/operations', { mode: 'export', org: 'acme' });
      expect(accepted.status).toBe(202);
      const id = accepted.body.correlation_id;
      expect(accepted.headers.get('location')).toBe(`/config-exchange/operations/${id}`);
      expect((await call(world, 'root', 'GET', `/config-exchange/operations/${id}`)).body).toMatchObject({
        status: 'queued',
        mode: 'export',
        org: 'acme',
      });
      const cancelled = await call(world, 'root', 'POST', `/config-exchange/operations/${id}/cancel`);
      expect([cancelled.status, cancelled.body.status]).toEqual([200, 'cancelled']);
      const again = await call(world, 'root', 'POST', `/config-exchange/operations/${id}/cancel`);
      expect([again.status, again.body.code]).toEqual([409, 'operation_finished']);
      const next = await queue(world, { mode: 'export', org: 'acme' });
      expect(await world.daemon.configExchange.runner.runQueued()).toBe(1);
      const done = (await call(world, 'root', 'GET', `/config-exchange/operations/${next}`)).body;
      expect(done).toMatchObject({ status: 'succeeded', progress: { phase: 'succeeded' } });
      expect(done.result.yaml).toContain('eu-west-1');
      expect(done.started_at).not.toBeNull();
      expect(await knex()('audit_logs').where({ event_type: 'config_exchange.operation_cancelled', resource_id: id })).toHaveLength(1);
    } finally {
      world.daemon.configExchange.runner.start();
    }
  });

  it('plans, refuses a stale plan (409) applying nothing, applies a fresh one with its changes audited under its correlation id', async () => {
    const bundle =
      'version: 1\norg: acme\nvariables:\n  - name: region\n    type: string\n    value: eu-central-1\n  - name: site\n    type: string\n    value: fra1\n';
    const planned = await run(world, { mode: 'plan', bundle });
    expect(planned.status).toBe('succeeded');
    expect(planned.result.summary).toMatchObject({ add: 1, change: 1, destroy: 0 });
    expect(planned.result.text).toContain('~ variables "region" will be updated in place');
    await knex()('variables').where({ org_id: world.ids.acme, name: 'region' }).update({ description: 'touched' });
    const stale = await call(world, 'root', 'POST', '/config-exchange/operations', { mode: 'apply', plan_id: planned.correlation_id });
    expect([stale.status, stale.body.code]).toEqual([409, 'stale_plan']);
    expect(await knex()('variables').where({ name: 'site' })).toHaveLength(0);

    const fresh = await run(world, { mode: 'plan', bundle });
    const applied = await run(world, { mode: 'apply', plan_id: fresh.correlation_id });
    expect(applied).toMatchObject({ status: 'succeeded', result: { summary: { add: 1, change: 1 } } });
    const entries = await knex()('audit_logs').whereRaw(`details_json->>'correlation_id' = ?`, [applied.correlation_id]);
    expect(entries.map((e) => e.event_type).sort()).toEqual([
      'config_exchange.applied',
      'config_exchange.operation_requested',
      'entity.created',
      'entity.updated',
    ]);
    expect(entries.every((e) => e.actor_username === 'root')).toBe(true);
    const twice = await call(world, 'root', 'POST', '/config-exchange/operations', { mode: 'apply', plan_id: fresh.correlation_id });
    expect([twice.status, twice.body.code]).toEqual([409, 'stale_plan']);
  });

  it('refuses a bundle with a YAML error or a schema error (422 bundle_invalid with line and path), queuing nothing', async () => {
    const before = await knex()('config_exchange_operations').count({ n: '*' });
    const yaml = await call(world, 'root', 'POST', '/config-exchange/operations', { mode: 'plan', bundle: 'version: 1\nvariables: [\n' });
    expect([yaml.status, yaml.body.code]).toEqual([422, 'bundle_invalid']);
    expect(yaml.body.errors[0]).toMatchObject({ line: expect.any(Number), column: expect.any(Number) });
    const schema = await call(world, 'root', 'POST', '/config-exchange/operations', {
      mode: 'plan',
      bundle: 'version: 1\norg: acme\nvariables:\n  - name: n\n    type: number\n    value: not-a-number\n',
    });
    expect([schema.status, schema.body.code]).toEqual([422, 'bundle_invalid']);
    expect(schema.body.errors).toEqual([expect.objectContaining({ path: 'variables[0].value', line: 6, column: 12 })]);
    expect(await knex()('config_exchange_operations').count({ n: '*' })).toEqual(before);
  });

  it("refuses an organization's section with no organization at the request (422 bundle_invalid at org), queuing nothing", async () => {
    const before = await knex()('config_exchange_operations').count({ n: '*' });
    const answer = await call(world, 'root', 'POST', '/config-exchange/operations', {
      mode: 'plan',
      bundle: 'version: 1\nvariables: []\n',
    });
    expect([answer.status, answer.body.code]).toEqual([422, 'bundle_invalid']);
    expect(answer.body.errors).toEqual([expect.objectContaining({ path: 'org' })]);
    expect(await knex()('config_exchange_operations').count({ n: '*' })).toEqual(before);
  });

  it('refuses a bundle whose aliases expand past the limit ("billion laughs") with 422 bundle_invalid, queuing nothing', async () => {
    const before = await knex()('config_exchange_operations').count({ n: '*' });
    const levels = ['a', 'b', 'c', 'd', 'e', 'f'];
    const lines = ['version: 1', 'org: acme', 'variables:'];
    levels.forEach((anchor, i) => {
      const items = i === 0 ? Array(10).fill('x') : Array(10).fill(`*${levels[i - 1]}`);
      lines.push(`  - name: lol_${anchor}`, '    type: json', `    value: &${anchor} [${items.join(', ')}]`);
    });
    const answer = await call(world, 'root', 'POST', '/config-exchange/operations', { mode: 'plan', bundle: `${lines.join('\n')}\n` });
    expect([answer.status, answer.body.code]).toEqual([422, 'bundle_invalid']);
    expect(answer.body.errors).toHaveLength(1);
    expect(await knex()('config_exchange_operations').count({ n: '*' })).toEqual(before);
  });

  it('refuses an apply naming no succeeded plan', async () => {
    const exported = await run(world, { mode: 'export' });
    const notPlan = await call(world, 'root', 'POST', '/config-exchange/operations', { mode: 'apply', plan_id: exported.correlation_id });
    expect([notPlan.status, notPlan.body.code]).toEqual([409, 'plan_not_applicable']);
    const unknown = await call(world, 'root', 'POST', '/config-exchange/operations', {
      mode: 'apply',
      plan_id: '00000000-0000-4000-8000-000000000000',
    });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'resource_not_found']);
    const missing = await call(world, 'root', 'GET', '/config-exchange/operations/not-a-uuid');
    expect(missing.status).toBe(404);
  });

  it('fails an operation whose rows changed after it was queued with the problem, stale_plan for an apply', async () => {
    const planned = await run(world, { mode: 'plan', bundle: 'version: 1\norg: acme\nvariables: []\n', prune: true });
    expect(planned.result.summary.destroy).toBeGreaterThan(0);
    await world.daemon.configExchange.runner.stop();
    try {
      const id = await queue(world, { mode: 'apply', plan_id: planned.correlation_id });
      await knex()('variables').where({ org_id: world.ids.acme, name: 'site' }).update({ description: 'changed meanwhile' });
      await world.daemon.configExchange.runner.runQueued();
      const failed = await finished(world, id);
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'stale_plan', status: 409 } });
      expect(await knex()('variables').where({ org_id: world.ids.acme }).whereNull('deleted_at')).toHaveLength(2);
    } finally {
      world.daemon.configExchange.runner.start();
    }
  });
});
