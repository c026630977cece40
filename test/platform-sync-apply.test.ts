import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedOrg } from './helpers/seed.js';
import { call, count, startWorld, type World } from './helpers/webhooks-fixtures.js';
import {
  apply,
  asRoot,
  createProfile,
  plan,
  planAndApply,
  setVariable,
  variablesBundle,
  variablesOf,
} from './helpers/platform-sync-fixtures.js';

let world: World;
/** Added to the daemon's clock: authorizations expire when a test moves it on. */
let skewMs = 0;
const orgs: Record<string, string> = {};
const knex = () => world.knex();

beforeAll(async () => {
  world = await startWorld({}, { clock: () => new Date(Date.now() + skewMs) });
  for (const slug of ['p-apply', 'p-drift', 'p-conflict', 'p-keep', 'p-prune', 'p-revoke', 'p-stale'])
    orgs[slug] = await seedOrg(knex(), slug);
  world.daemon.services.orgAccess.invalidate();
});
afterAll(() => world?.close());

const bundleProfile = (org: string, variables: Record<string, string | number>, fields: Record<string, unknown> = {}) =>
  createProfile(world, { source: { kind: 'bundle', bundle: variablesBundle(variables) }, target: { scope: 'org', org }, ...fields });
const changeBundle = (profileId: string, variables: Record<string, string | number>) =>
  asRoot(world, 'PATCH', `/platform-sync/profiles/${profileId}`, { source: { kind: 'bundle', bundle: variablesBundle(variables) } });

describe('platform sync: plan and apply', () => {
  it('plans an inline bundle, applies it, and records the run under a correlation id its audit entries carry', async () => {
    const id = await bundleProfile('p-apply', { region: 'eu-west-1', mtu: 9000 });
    const planned = await plan(world, id);
    expect(planned.status).toBe(201);
    expect(planned.body).toMatchObject({ profile_id: id, org: 'p-apply', families: ['variables'], prune: false, applied_at: null });
    expect(planned.body.summary).toMatchObject({ add: 2, change: 0, destroy: 0, conflicts: 0, destructive: 0 });
    expect(planned.body.changes.map((c: { key: string; action: string }) => `${c.action} ${c.key}`)).toEqual([
      'create mtu',
      'create region',
    ]);
    expect(planned.body.changes[0].change_id).toMatch(/^[0-9a-f]{32}$/);
    expect(planned.body.text).toContain('region');

    expect((await asRoot(world, 'GET', `/platform-sync/plans/${planned.body.id}`)).body.id).toBe(planned.body.id);
    const family = await asRoot(world, 'GET', `/platform-sync/plans/${planned.body.id}/families/variables`);
    expect(family.status).toBe(200);
    expect(family.body.changes).toHaveLength(2);
    expect((await asRoot(world, 'GET', `/platform-sync/plans/${planned.body.id}/families/webhooks`)).status).toBe(404);

    const applied = await apply(world, id, planned.body.id);
    expect(applied.status).toBe(201);
    expect(applied.body).toMatchObject({
      kind: 'apply',
      status: 'succeeded',
      counts: { created: 2, updated: 0, deleted: 0 },
      actor_sub: 'sub-root',
    });
    expect(await variablesOf(knex(), orgs['p-apply']!)).toEqual({ region: 'eu-west-1', mtu: 9000 });
    const entries = await knex()('audit_logs').where({ resource_type: 'variable', event_type: 'entity.created', org_id: orgs['p-apply'] });
    expect(entries).toHaveLength(2);
    expect(
      entries.every((e: { details_json: { correlation_id?: string } }) => e.details_json.correlation_id === applied.body.correlation_id),
    ).toBe(true);

    const runs = await asRoot(world, 'GET', `/platform-sync/profiles/${id}/runs`);
    expect(runs.body.items.map((r: { id: string }) => r.id)).toEqual([applied.body.id]);
    expect((await asRoot(world, 'GET', `/platform-sync/runs/${applied.body.id}`)).body.correlation_id).toBe(applied.body.correlation_id);
    expect((await asRoot(world, 'GET', `/platform-sync/profiles/${id}`)).body.last_applied_at).not.toBeNull();

    // Applying the same plan again is refused: it was applied.
    const again = await apply(world, id, planned.body.id);
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('stale_plan');
  });

  it('refuses a bundle with a YAML or schema error with its line and path, saving no plan', async () => {
    const id = await createProfile(world, {
      source: { kind: 'bundle', bundle: 'version: 1\nvariables:\n  - name: region\n    type: colour\n    value: red\n' },
      target: { scope: 'org', org: 'p-apply' },
    });
    const refused = await plan(world, id);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('bundle_invalid');
    expect(refused.body.errors[0]).toMatchObject({ path: 'variables[0].type', line: 4 });
    expect(await count(knex()('platform_sync_plans').where({ profile_id: id }))).toBe(0);
  });

  it('shows drift: items the last apply left that changed or were deleted locally since', async () => {
    const id = await bundleProfile('p-drift', { a: 'one', b: 'two', c: 'three' });
    expect((await asRoot(world, 'GET', `/platform-sync/profiles/${id}/drift`)).body).toMatchObject({
      items: [],
      total: 0,
      last_applied_at: null,
    });
    await planAndApply(world, id);
    expect((await asRoot(world, 'GET', `/platform-sync/profiles/${id}/drift`)).body.total).toBe(0);

    await setVariable(knex(), orgs['p-drift']!, 'a', 'edited');
    await knex()('variables').where({ org_id: orgs['p-drift'], name: 'b' }).update({ deleted_at: knex().fn.now() });
    const drift = await asRoot(world, 'GET', `/platform-sync/profiles/${id}/drift`);
    expect(drift.status).toBe(200);
    expect(drift.body.items.map((i: { key: string; state: string }) => `${i.key} ${i.state}`)).toEqual(['a changed', 'b deleted']);

    // Drift alone is no conflict: the next plan puts the source's versions back.
    const planned = await plan(world, id);
    expect(planned.body.summary).toMatchObject({ add: 1, change: 1, conflicts: 0 });
  });

  it('finds a conflict (changed locally and in the source), refuses apply until resolved, then takes the source', async () => {
    const id = await bundleProfile('p-conflict', { region: 'eu-west-1', tier: 'gold' });
    await planAndApply(world, id);
    await setVariable(knex(), orgs['p-conflict']!, 'region', 'eu-central-1');
    await changeBundle(id, { region: 'us-east-1', tier: 'platinum' });

    const planned = await plan(world, id);
    const conflict = planned.body.changes.find((c: { key: string }) => c.key === 'region');
    expect(conflict).toMatchObject({ action: 'update', conflict: true, resolution: null });
    expect(planned.body.changes.find((c: { key: string }) => c.key === 'tier')).toMatchObject({ conflict: false });
    expect(planned.body.summary).toMatchObject({ conflicts: 1, unresolved: 1 });

    const refused = await apply(world, id, planned.body.id);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('sync_conflict');
    expect(refused.body.change_ids).toEqual([conflict.change_id]);
    expect(await variablesOf(knex(), orgs['p-conflict']!)).toEqual({ region: 'eu-central-1', tier: 'gold' });
    const failed = await asRoot(world, 'GET', `/platform-sync/profiles/${id}/runs?status=failed`);
    expect(failed.body.items[0].error.code).toBe('sync_conflict');

    const resolved = await asRoot(world, 'POST', `/platform-sync/profiles/${id}/conflicts/${conflict.change_id}/resolve`, {
      resolution: 'take_source',
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ change_id: conflict.change_id, resolution: 'take_source', resolved_by: 'sub-root' });
    expect(await count(knex()('audit_logs').where({ event_type: 'platform_sync.conflict_resolved' }))).toBeGreaterThan(0);
    expect((await asRoot(world, 'GET', `/platform-sync/plans/${planned.body.id}`)).body.summary.unresolved).toBe(0);

    expect((await apply(world, id, planned.body.id)).status).toBe(201);
    expect(await variablesOf(knex(), orgs['p-conflict']!)).toEqual({ region: 'us-east-1', tier: 'platinum' });
  });

  it('keeps the target for a conflict resolved keep_target, and answers 404 for a change id that is no conflict', async () => {
    const id = await bundleProfile('p-keep', { region: 'eu-west-1' });
    await planAndApply(world, id);
    await setVariable(knex(), orgs['p-keep']!, 'region', 'local');
    await changeBundle(id, { region: 'source' });
    const planned = await plan(world, id);
    const changeId = planned.body.changes[0].change_id as string;
    const unknown = await asRoot(world, 'POST', `/platform-sync/profiles/${id}/conflicts/${'0'.repeat(32)}/resolve`, {
      resolution: 'keep_target',
    });
    expect(unknown.status).toBe(404);
    expect(
      (await asRoot(world, 'POST', `/platform-sync/profiles/${id}/conflicts/${changeId}/resolve`, { resolution: 'keep_target' })).status,
    ).toBe(200);
    const applied = await apply(world, id, planned.body.id);
    expect(applied.status).toBe(201);
    expect(applied.body.counts).toEqual({ created: 0, updated: 0, deleted: 0 });
    expect(await variablesOf(knex(), orgs['p-keep']!)).toEqual({ region: 'local' });
    // Kept: it stays drifted, and the same conflict (same change id) stays resolved.
    expect((await asRoot(world, 'GET', `/platform-sync/profiles/${id}/drift`)).body.total).toBe(1);
    const replanned = await plan(world, id);
    expect(replanned.body.changes[0]).toMatchObject({ change_id: changeId, conflict: true, resolution: 'keep_target' });
  });
});

describe('platform sync: destructive changes', () => {
  it('refuses a prune without an authorization and applies it under one, the use audited', async () => {
    const id = await bundleProfile('p-prune', { keep: 'yes', retired: 'old' }, { prune: true });
    await planAndApply(world, id);
    await changeBundle(id, { keep: 'yes' });
    const planned = await plan(world, id);
    expect(planned.body.changes).toEqual([expect.objectContaining({ key: 'retired', action: 'delete', destructive: true })]);

    const refused = await apply(world, id, planned.body.id);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'destructive_not_authorized', reason: 'none' });
    expect(await variablesOf(knex(), orgs['p-prune']!)).toEqual({ keep: 'yes', retired: 'old' });

    const granted = await asRoot(world, 'POST', `/platform-sync/profiles/${id}/destructive-authorizations`, {
      reason: 'retire old variables',
      plan_id: planned.body.id,
    });
    expect(granted.status).toBe(201);
    const applied = await apply(world, id, planned.body.id);
    expect(applied.status).toBe(201);
    expect(applied.body).toMatchObject({ counts: { deleted: 1 }, authorization_id: granted.body.id });
    expect(await variablesOf(knex(), orgs['p-prune']!)).toEqual({ keep: 'yes' });
    const listed = await asRoot(world, 'GET', `/platform-sync/profiles/${id}/destructive-authorizations`);
    expect(listed.body.items[0]).toMatchObject({ use_count: 1 });
    const used = await knex()('audit_logs').where({ event_type: 'platform_sync.authorization_used', resource_id: granted.body.id });
    expect(used).toHaveLength(1);
    expect(used[0].details_json.correlation_id).toBe(applied.body.correlation_id);
  });

  it('refuses under a revoked or an expired authorization', async () => {
    const id = await bundleProfile('p-revoke', { a: '1', b: '2' }, { prune: true });
    await planAndApply(world, id);
    await changeBundle(id, { a: '1' });
    const planned = await plan(world, id);
    const base = `/platform-sync/profiles/${id}/destructive-authorizations`;
    const granted = await asRoot(world, 'POST', base, { reason: 'cleanup' });
    expect((await asRoot(world, 'POST', `${base}/${granted.body.id}/revoke`, { reason: 'not today' })).status).toBe(200);
    const revoked = await apply(world, id, planned.body.id);
    expect(revoked.body).toMatchObject({ code: 'destructive_not_authorized', reason: 'revoked' });

    await asRoot(world, 'POST', base, { reason: 'cleanup', expires_in_seconds: 60 });
    skewMs = 120_000;
    try {
      const expired = await apply(world, id, planned.body.id);
      expect(expired.body).toMatchObject({ code: 'destructive_not_authorized', reason: 'expired' });
    } finally {
      skewMs = 0;
    }
    expect(await variablesOf(knex(), orgs['p-revoke']!)).toEqual({ a: '1', b: '2' });
  });
});

describe('platform sync: stale plans and access', () => {
  it('refuses a plan whose rows changed since (409 stale_plan), applying nothing, and one made before the profile changed', async () => {
    const id = await bundleProfile('p-stale', { x: 'source' });
    const planned = await plan(world, id);
    await knex()('variables').insert({ org_id: orgs['p-stale'], name: 'y', type: 'string', value_json: JSON.stringify('local') });
    const stale = await apply(world, id, planned.body.id);
    expect(stale.status).toBe(409);
    expect(stale.body.code).toBe('stale_plan');
    expect(await variablesOf(knex(), orgs['p-stale']!)).toEqual({ y: 'local' });

    const fresh = await plan(world, id);
    await asRoot(world, 'PATCH', `/platform-sync/profiles/${id}`, { description: 'changed' });
    expect((await apply(world, id, fresh.body.id)).body.code).toBe('stale_plan');
    const failed = await asRoot(world, 'GET', `/platform-sync/profiles/${id}/runs?status=failed`);
    expect(failed.body.total).toBe(2);
  });

  it('exports the profile scope synchronously as an export run', async () => {
    const id = await bundleProfile('p-apply', {});
    const exported = await asRoot(world, 'POST', `/platform-sync/profiles/${id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body).toMatchObject({ families: ['variables'], org: 'p-apply' });
    expect(exported.body.yaml).toContain('eu-west-1');
    expect((await asRoot(world, 'GET', `/platform-sync/runs/${exported.body.run_id}`)).body.kind).toBe('export');
  });

  it('refuses an organization admin (403) on plan, apply, drift, resolve and export', async () => {
    const id = await bundleProfile('p-apply', { region: 'eu-west-1' });
    for (const [method, path, body] of [
      ['POST', `/platform-sync/profiles/${id}/plan`, undefined],
      ['POST', `/platform-sync/profiles/${id}/apply`, { plan_id: '00000000-0000-4000-8000-000000000000' }],
      ['GET', `/platform-sync/profiles/${id}/drift`, undefined],
      ['POST', `/platform-sync/profiles/${id}/conflicts/${'0'.repeat(32)}/resolve`, { resolution: 'take_source' }],
      ['POST', `/platform-sync/profiles/${id}/export`, undefined],
    ] as const) {
      const refused = await call(world, 'alice', method, path, body);
      expect(refused.status, `${method} ${path}`).toBe(403);
    }
  });
});
