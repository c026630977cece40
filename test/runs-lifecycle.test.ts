import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';
import { BARE, seedFlow, UNKNOWN_ID } from './helpers/runs-fixtures.js';

interface Run {
  id: string;
  org_id: string;
  name: string;
  flow_id: string | null;
  flow_name: string;
  status: string;
  trigger_source: string;
  started_at: string | null;
  paused_at: string | null;
  finished_at: string | null;
  cancelled_at: string | null;
  cancelled_by: string | null;
  deleted_at: string | null;
  created_at: string;
}
interface Page {
  items: Run[];
  total: number;
  limit: number;
  offset: number;
}

let idp: DevIdp;
let daemon: TestDaemon;
const ids: Record<string, string> = {};
const as: Record<string, string> = {};
const knex = () => daemon.services.db.knex;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' });
  const db = knex();
  ids.acme = await seedOrg(db, 'acme');
  ids.globex = await seedOrg(db, 'globex');
  ids.commons = await seedOrg(db, 'commons');
  await db('organizations').where({ id: ids.commons }).update({ is_shared: true });
  await seedUser(db, { sub: 'sub-opal', username: 'opal' }, [{ orgSlug: 'acme', role: 'operator' }]);
  await seedUser(db, { sub: 'sub-vic', username: 'vic' }, [{ orgSlug: 'acme', role: 'viewer' }]);
  await seedUser(db, { sub: 'sub-ada', username: 'ada' }, [{ orgSlug: 'acme', role: 'admin' }]);
  await seedUser(db, { sub: 'sub-gus', username: 'gus' }, [{ orgSlug: 'globex', role: 'admin' }]);
  for (const who of ['opal', 'vic', 'ada', 'gus'])
    as[who] = `Bearer ${await idp.mintAccessToken({ sub: `sub-${who}`, username: who, realmRoles: [] })}`;
  as.root = `Bearer ${await idp.mintAccessToken({ sub: 'sub-root', username: 'root', realmRoles: ['admin'] })}`;
  ids.alpha = await seedFlow(db, ids.acme, { name: 'alpha', versions: [BARE] });
  ids.beta = await seedFlow(db, ids.acme, { name: 'beta', versions: [BARE] });
  ids.theirs = await seedFlow(db, ids.globex, { name: 'theirs', versions: [BARE] });
  ids.common = await seedFlow(db, ids.commons, { name: 'common', versions: [BARE] });
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

function call(who: string, method: string, path: string, body?: unknown, org = 'acme'): Promise<Response> {
  return fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: as[who]!, 'x-org-id': org, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function ok<T = Run>(response: Response, status = 200): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
}

async function code(response: Response): Promise<{ status: number; code: string }> {
  const body = (await response.json()) as { code: string };
  return { status: response.status, code: body.code };
}

async function start(flowId: string, name?: string, who = 'opal', org = 'acme'): Promise<Run> {
  return ok(await call(who, 'POST', '/runs', { flow_id: flowId, ...(name ? { name } : {}) }, org), 201);
}

const row = (id: string) => knex()('runs').where({ id }).first();
const audit = (eventType: string, id: string) => knex()('audit_logs').where({ event_type: eventType, resource_id: id }).select();

describe('reading runs', () => {
  it("lists the organization's runs newest first, with filters and pages", async () => {
    const a1 = await start(ids.alpha!, 'first alpha');
    const b1 = await start(ids.beta!, 'Beta nightly');
    const a2 = await start(ids.alpha!, '100%_done');
    await knex()('runs')
      .where({ id: a1.id })
      .update({ status: 'succeeded', trigger_source: 'schedule', created_at: new Date('2020-01-01T00:00:00Z') });
    await start(ids.theirs!, undefined, 'gus', 'globex');

    const all = await ok<Page>(await call('vic', 'GET', '/runs'));
    expect(all).toMatchObject({ total: 3, limit: 50, offset: 0 });
    expect(all.items.map((r) => r.id)).toEqual([a2.id, b1.id, a1.id]);

    const names = async (query: string) => (await ok<Page>(await call('vic', 'GET', `/runs?${query}`))).items.map((r) => r.name);
    expect(await names('status=succeeded')).toEqual(['first alpha']);
    expect(await names('status=queued,succeeded')).toHaveLength(3);
    expect(await names('status=queued&status=failed')).toEqual(['100%_done', 'Beta nightly']);
    expect(await names(`flow_id=${ids.beta}`)).toEqual(['Beta nightly']);
    expect(await names('trigger_source=schedule')).toEqual(['first alpha']);
    expect(await names('created_before=2021-01-01')).toEqual(['first alpha']);
    expect(await names('created_after=2021-01-01T00:00:00Z')).toEqual(['100%_done', 'Beta nightly']);
    expect(await names('q=beta')).toEqual(['Beta nightly']);
    expect(await names('q=%25_')).toEqual(['100%_done']);
    expect(await names('q=_')).toEqual(['100%_done']);

    const page = await ok<Page>(await call('vic', 'GET', '/runs?limit=1&offset=1'));
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.items.map((r) => r.id)).toEqual([b1.id]);
  });

  it.each(['status=done', 'trigger_source=cron', 'flow_id=x', 'created_after=yesterday', 'limit=0', 'limit=501', 'bogus=1'])(
    'refuses the query %s with 422',
    async (query) => {
      expect(await code(await call('vic', 'GET', `/runs?${query}`))).toEqual({ status: 422, code: 'validation_failed' });
    },
  );

  it('answers the filter options present in the organization', async () => {
    const options = await ok<{ flows: { id: string; name: string }[]; statuses: string[]; trigger_sources: string[] }>(
      await call('vic', 'GET', '/runs/filter-options'),
    );
    expect(options).toEqual({
      flows: [
        { id: ids.alpha, name: 'alpha' },
        { id: ids.beta, name: 'beta' },
      ],
      statuses: ['queued', 'succeeded'],
      trigger_sources: ['manual', 'schedule'],
    });
  });

  it('reads one run; unknown, malformed and foreign ids are 404', async () => {
    const run = await start(ids.alpha!);
    expect(await ok(await call('vic', 'GET', `/runs/${run.id}`))).toEqual(run);
    expect(await code(await call('vic', 'GET', `/runs/${UNKNOWN_ID}`))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await code(await call('vic', 'GET', '/runs/not-a-uuid'))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await code(await call('gus', 'GET', `/runs/${run.id}`, undefined, 'globex'))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
    expect(await code(await call('root', 'GET', `/runs/${run.id}`, undefined, 'globex'))).toEqual({
      status: 404,
      code: 'resource_not_found',
    });
  });

  it("never shows the shared organization's runs to another organization", async () => {
    const shared = await start(ids.common!, 'shared run', 'root', 'commons');
    expect(await code(await call('vic', 'GET', `/runs/${shared.id}`))).toEqual({ status: 404, code: 'resource_not_found' });
    const list = await ok<Page>(await call('vic', 'GET', '/runs?limit=500'));
    expect(list.items.some((r) => r.id === shared.id)).toBe(false);
    expect(await code(await call('opal', 'POST', `/runs/${shared.id}/cancel`))).toEqual({ status: 404, code: 'resource_not_found' });
    expect((await row(shared.id)).status).toBe('queued');
  });
});

describe('controlling runs', () => {
  it('pauses a queued run (held), resumes it to queued, and audits each move', async () => {
    const run = await start(ids.alpha!);
    const paused = await ok(await call('opal', 'POST', `/runs/${run.id}/pause`));
    expect(paused).toMatchObject({ status: 'paused', started_at: null });
    expect(paused.paused_at).not.toBeNull();
    expect(await code(await call('opal', 'POST', `/runs/${run.id}/pause`))).toEqual({ status: 409, code: 'invalid_run_state' });
    expect(await ok(await call('opal', 'POST', `/runs/${run.id}/resume`))).toMatchObject({ status: 'queued', paused_at: null });
    expect(await code(await call('opal', 'POST', `/runs/${run.id}/resume`))).toEqual({ status: 409, code: 'invalid_run_state' });
    const [entry] = await audit('run.paused', run.id);
    expect(entry).toMatchObject({ actor_sub: 'sub-opal', action: 'run:control', org_id: ids.acme, resource_type: 'run' });
    expect(entry.details_json).toMatchObject({ from: 'queued', to: 'paused' });
    expect(await audit('run.resumed', run.id)).toHaveLength(1);
  });

  it('resumes a run a worker holds back to running', async () => {
    const run = await start(ids.alpha!);
    await knex()('runs').where({ id: run.id }).update({ status: 'running', worker_id: 'w1', started_at: knex().fn.now() });
    await ok(await call('opal', 'POST', `/runs/${run.id}/pause`));
    expect(await ok(await call('opal', 'POST', `/runs/${run.id}/resume`))).toMatchObject({ status: 'running' });
  });

  it('cancels queued, running and paused runs; a finished run answers 409 and stays as it was', async () => {
    for (const setup of ['queued', 'running', 'paused']) {
      const run = await start(ids.alpha!);
      if (setup !== 'queued') await knex()('runs').where({ id: run.id }).update({ status: setup });
      const cancelled = await ok(await call('opal', 'POST', `/runs/${run.id}/cancel`));
      expect(cancelled).toMatchObject({ status: 'cancelled', cancelled_by: 'sub-opal' });
      expect(cancelled.cancelled_at).not.toBeNull();
      expect(cancelled.finished_at).not.toBeNull();
      expect(await audit('run.cancelled', run.id)).toHaveLength(1);
    }
    for (const status of ['succeeded', 'failed', 'cancelled']) {
      const run = await start(ids.alpha!);
      await knex()('runs').where({ id: run.id }).update({ status });
      const refused = await call('opal', 'POST', `/runs/${run.id}/cancel`);
      // The body's `status` is the HTTP status (RFC 9457); the run's is `current_status`.
      expect(await refused.json()).toMatchObject({ status: 409, code: 'invalid_run_state', current_status: status });
      expect((await row(run.id)).status).toBe(status);
      expect(await audit('run.cancelled', run.id)).toHaveLength(0);
    }
  });

  it('renames a run', async () => {
    const run = await start(ids.alpha!);
    expect(await ok(await call('opal', 'PATCH', `/runs/${run.id}`, { name: '  renamed  ' }))).toMatchObject({ name: 'renamed' });
    const [entry] = await audit('entity.updated', run.id);
    expect(entry.details_json).toMatchObject({ changes: { name: { old: 'alpha', new: 'renamed' } } });
    for (const body of [{}, { name: '' }, { name: 'a\u0007b' }, { name: 'x'.repeat(256) }, { name: 'ok', status: 'succeeded' }]) {
      expect(await code(await call('opal', 'PATCH', `/runs/${run.id}`, body))).toEqual({ status: 422, code: 'validation_failed' });
    }
  });

  it('soft-deletes a finished run (hidden until restored) and refuses to delete an active one', async () => {
    const active = await start(ids.beta!);
    expect(await code(await call('opal', 'DELETE', `/runs/${active.id}`))).toEqual({ status: 409, code: 'invalid_run_state' });

    const run = await start(ids.beta!, 'to delete');
    await ok(await call('opal', 'POST', `/runs/${run.id}/cancel`));
    expect((await call('opal', 'DELETE', `/runs/${run.id}`)).status).toBe(204);
    expect(await row(run.id)).toMatchObject({ deleted_by: 'sub-opal' });
    expect(await code(await call('vic', 'GET', `/runs/${run.id}`))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await code(await call('opal', 'POST', `/runs/${run.id}/resume`))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await code(await call('opal', 'PATCH', `/runs/${run.id}`, { name: 'x' }))).toEqual({ status: 404, code: 'resource_not_found' });
    expect(await code(await call('opal', 'DELETE', `/runs/${run.id}`))).toEqual({ status: 404, code: 'resource_not_found' });
    expect((await ok<Page>(await call('vic', 'GET', '/runs?limit=500'))).items.some((r) => r.id === run.id)).toBe(false);
    const withDeleted = await ok<Page>(await call('vic', 'GET', '/runs?include_deleted=true&q=to%20delete'));
    expect(withDeleted.items.map((r) => r.id)).toEqual([run.id]);
    expect(withDeleted.items[0]!.deleted_at).not.toBeNull();

    const restored = await ok(await call('opal', 'POST', `/runs/${run.id}/restore`));
    expect(restored).toMatchObject({ id: run.id, deleted_at: null, status: 'cancelled' });
    expect(await code(await call('opal', 'POST', `/runs/${run.id}/restore`))).toEqual({ status: 409, code: 'conflict' });
    expect(await audit('entity.deleted', run.id)).toHaveLength(1);
    expect(await audit('entity.restored', run.id)).toHaveLength(1);
  });

  it('purges a finished run, live or soft-deleted, for an organization admin only', async () => {
    const live = await start(ids.beta!);
    const deleted = await start(ids.beta!);
    for (const run of [live, deleted]) await ok(await call('opal', 'POST', `/runs/${run.id}/cancel`));
    await call('opal', 'DELETE', `/runs/${deleted.id}`);

    expect(await code(await call('opal', 'DELETE', `/runs/${live.id}/permanent`))).toEqual({ status: 403, code: 'forbidden' });
    expect(await row(live.id)).toBeDefined();
    for (const run of [live, deleted]) {
      expect((await call('ada', 'DELETE', `/runs/${run.id}/permanent`)).status).toBe(204);
      expect(await row(run.id)).toBeUndefined();
      const [entry] = await audit('entity.purged', run.id);
      expect(entry).toMatchObject({ actor_sub: 'sub-ada', action: 'run:purge', resource_type: 'run', org_id: ids.acme });
    }
    expect(await code(await call('ada', 'DELETE', `/runs/${live.id}/permanent`))).toEqual({ status: 404, code: 'resource_not_found' });

    const active = await start(ids.beta!);
    expect(await code(await call('ada', 'DELETE', `/runs/${active.id}/permanent`))).toEqual({ status: 409, code: 'invalid_run_state' });
  });

  it("answers 404 with no change for another organization's run on every control route", async () => {
    const run = await start(ids.alpha!, 'mine');
    await ok(await call('opal', 'POST', `/runs/${run.id}/pause`));
    const before = await row(run.id);
    const attempts: [string, string, unknown?][] = [
      ['POST', `/runs/${run.id}/cancel`],
      ['POST', `/runs/${run.id}/pause`],
      ['POST', `/runs/${run.id}/resume`],
      ['PATCH', `/runs/${run.id}`, { name: 'stolen' }],
      ['DELETE', `/runs/${run.id}`],
      ['POST', `/runs/${run.id}/restore`],
      ['DELETE', `/runs/${run.id}/permanent`],
    ];
    for (const [method, path, body] of attempts) {
      expect(await code(await call('gus', method, path, body, 'globex')), `${method} ${path}`).toEqual({
        status: 404,
        code: 'resource_not_found',
      });
    }
    expect(await row(run.id)).toEqual(before);
    const entries = await knex()('audit_logs')
      .where({ resource_id: run.id })
      .whereNot({ event_type: 'run.started' })
      .whereNot({ event_type: 'run.paused' });
    expect(entries).toHaveLength(0);
  });

  it('leaves control to operators (viewers 403)', async () => {
    const run = await start(ids.alpha!);
    expect(await code(await call('vic', 'POST', `/runs/${run.id}/cancel`))).toEqual({ status: 403, code: 'forbidden' });
    expect((await row(run.id)).status).toBe('queued');
  });
});
