import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { install, operator, type Installation } from './helpers/config-exchange-installations.js';

/**
 * The flows family between two installations: settings, draft and the newest committed version travel;
 * a differing committed version is committed on the target through the flows domain's commit hooks; a
 * webhook's flow may come in the same bundle.
 */

const FAMILIES = ['flows', 'webhooks'];
const step = (id: string, config: Record<string, unknown> = {}) => ({ id, handler: 'general.noop', config });
const V1: FlowDefinition = { steps: [step('one')], edges: [], inputs: [], target_roles: [] };
const V2: FlowDefinition = { ...V1, steps: [step('one'), step('two')], edges: [{ from: 'one', to: 'two' }] };
const DRAFT: FlowDefinition = { ...V2, inputs: [{ name: 'ticket', type: 'string', required: true }] };
let one: Installation;
let two: Installation;

const planOf = (target: Installation, yaml: string, id: string) =>
  target.engine.plan(target.engine.parse(yaml), { planId: id, org: target.acme, families: FAMILIES, prune: false });

beforeAll(async () => {
  [one, two] = await Promise.all([install(), install()]);
  const knex = one.daemon.services.db.knex;
  const [deploy] = await knex('flows')
    .insert({
      org_id: one.acme.id,
      name: 'deploy',
      description: 'Rolls out',
      is_pinned: true,
      manual_runs_enabled: false,
      draft_json: JSON.stringify(DRAFT),
      latest_version: 2,
      draft_dirty: true,
    })
    .returning('id');
  await knex('flow_versions').insert(
    [V1, V2].map((definition, i) => ({ flow_id: deploy.id, version: i + 1, definition_json: JSON.stringify(definition) })),
  );
  await knex('flows').insert({ org_id: one.acme.id, name: 'sketch', draft_json: JSON.stringify({ ...V1, steps: [] }) });
  await knex('webhook_endpoints').insert({ org_id: one.acme.id, name: 'push', path_token: 'b'.repeat(43), flow_id: deploy.id });
});
afterAll(async () => {
  await Promise.all([one?.daemon.close(), two?.daemon.close()]);
});

describe('configuration exchange: flows', () => {
  it('round-trips settings, draft and the newest committed version, with a webhook naming a flow of the same bundle', async () => {
    const exported = await one.engine.export({ org: one.acme, families: FAMILIES });
    const plan = await planOf(two, exported.yaml, '00000000-0000-4000-8000-000000000001');
    expect(plan.changes.map((c) => [c.family, c.key, c.action])).toEqual([
      ['flows', 'deploy', 'create'],
      ['flows', 'sketch', 'create'],
      ['webhooks', 'push', 'create'],
    ]);
    await two.engine.apply(plan, two.acme, operator(plan.plan_id));
    expect((await two.engine.export({ org: two.acme, families: FAMILIES })).yaml).toBe(exported.yaml);

    const knex = two.daemon.services.db.knex;
    const deploy = await knex('flows').where({ org_id: two.acme.id, name: 'deploy' }).first();
    expect(deploy).toMatchObject({ latest_version: 1, draft_dirty: true, is_pinned: true, manual_runs_enabled: false });
    expect((await knex('flow_versions').where({ flow_id: deploy.id })).map((v) => [v.version, v.definition_json])).toEqual([[1, V2]]);
    expect(await knex('flows').where({ name: 'sketch' }).first('latest_version', 'draft_dirty')).toEqual({
      latest_version: 0,
      draft_dirty: true,
    });
    expect(await knex('webhook_endpoints').where({ name: 'push' }).first('flow_id')).toEqual({ flow_id: deploy.id });
    const audit = await knex('audit_logs').whereRaw(`details_json->>'correlation_id' = ?`, [plan.plan_id]).orderBy('event_type');
    expect(audit.filter((a) => a.resource_type === 'flow').map((a) => a.event_type)).toEqual([
      'entity.created',
      'entity.created',
      'flow.committed',
    ]);
  });

  it('plans exactly an edit of the committed version, and applying it commits the next version', async () => {
    const exported = await one.engine.export({ org: one.acme, families: ['flows'] });
    const document = parse(exported.yaml) as {
      flows: { description: string; draft: { edges: unknown[] }; committed: { edges: unknown[] } }[];
    };
    const deployItem = document.flows[0]!;
    deployItem.description = 'Rolls out v3';
    deployItem.draft.edges = [];
    deployItem.committed.edges = [];
    const edited = stringify(document);
    const plan = await two.engine.plan(two.engine.parse(edited), { planId: 'p-edit', org: two.acme, families: ['flows'], prune: false });
    expect(plan.changes.map((c) => [c.key, c.action, c.diffs])).toEqual([
      [
        'deploy',
        'update',
        [
          { path: 'description', before: 'Rolls out', after: 'Rolls out v3' },
          { path: 'draft.edges', before: [{ from: 'one', to: 'two' }], after: [] },
          { path: 'committed.edges', before: [{ from: 'one', to: 'two' }], after: [] },
        ],
      ],
    ]);
    await two.engine.apply(plan, two.acme, operator('p-edit'));
    const knex = two.daemon.services.db.knex;
    const deploy = await knex('flows').where({ org_id: two.acme.id, name: 'deploy' }).first();
    expect([deploy.latest_version, deploy.description]).toEqual([2, 'Rolls out v3']);
    const v2 = await knex('flow_versions').where({ flow_id: deploy.id, version: 2 }).first('definition_json');
    expect(v2.definition_json.edges).toEqual([]);
  });

  it("commits through the flows domain's hooks: a version naming attachments the flow lacks is refused, nothing applied", async () => {
    const definition = { steps: [step('play', { mounted_files: { include: ['site.yml'] } })] };
    const bundle = `version: 1\norg: acme\nflows:\n  - name: attached\n    draft: ${JSON.stringify(definition)}\n    committed: ${JSON.stringify(definition)}\n`;
    const plan = await two.engine.plan(two.engine.parse(bundle), { planId: 'p-hook', org: two.acme, families: ['flows'], prune: false });
    await expect(two.engine.apply(plan, two.acme, operator('p-hook'))).rejects.toMatchObject({ code: 'validation_failed' });
    expect(await two.daemon.services.db.knex('flows').where({ name: 'attached' })).toHaveLength(0);
  });
});
