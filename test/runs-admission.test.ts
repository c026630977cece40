import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { AdmissionRepo } from '../src/daemon/domains/runs/admission-repo.js';
import type { AdmissionRequest } from '../src/daemon/domains/runs/run-admission.js';
import { RunAdmissionService } from '../src/daemon/domains/runs/run-admission-service.js';
import { Problem } from '../src/shared/api/problem.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';
import { BARE, DEFINITION, seedDevice, seedFlow, UNKNOWN_ID } from './helpers/runs-fixtures.js';

const MAX_TARGETS = 5;

let idp: DevIdp;
let daemon: TestDaemon;
const ids: Record<string, string> = {};
const as: Record<string, string> = {};
const knex = () => daemon.services.db.knex;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({
    SERVICE_IDP_ISSUER: idp.issuer,
    SERVICE_ORG_AUTO_JOIN: 'false',
    SERVICE_INVENTORY_MAX_RUN_TARGETS: String(MAX_TARGETS),
  });
  const db = knex();
  ids.acme = await seedOrg(db, 'acme');
  ids.globex = await seedOrg(db, 'globex');
  ids.commons = await seedOrg(db, 'commons');
  await db('organizations').where({ id: ids.commons }).update({ is_shared: true });
  await seedUser(db, { sub: 'sub-opal', username: 'opal' }, [{ orgSlug: 'acme', role: 'operator' }]);
  await seedUser(db, { sub: 'sub-vic', username: 'vic' }, [{ orgSlug: 'acme', role: 'viewer' }]);
  await seedUser(db, { sub: 'sub-ada', username: 'ada' }, [{ orgSlug: 'acme', role: 'admin' }]);
  as.root = `Bearer ${await idp.mintAccessToken({ sub: 'sub-root', username: 'root', realmRoles: ['admin'] })}`;
  as.opal = `Bearer ${await idp.mintAccessToken({ sub: 'sub-opal', username: 'opal', realmRoles: ['operator'] })}`;
  as.vic = `Bearer ${await idp.mintAccessToken({ sub: 'sub-vic', username: 'vic', realmRoles: [] })}`;
  as.ada = `Bearer ${await idp.mintAccessToken({ sub: 'sub-ada', username: 'ada', realmRoles: [] })}`;

  ids.flow = await seedFlow(db, ids.acme, { name: 'upgrade', versions: [BARE, DEFINITION] });
  ids.locked = await seedFlow(db, ids.acme, { name: 'locked', versions: [BARE], manualRuns: false });
  ids.draftOnly = await seedFlow(db, ids.acme, { name: 'draft-only' });
  ids.deletedFlow = await seedFlow(db, ids.acme, { name: 'gone', versions: [BARE], deleted: true });
  ids.foreignFlow = await seedFlow(db, ids.globex, { name: 'theirs', versions: [BARE] });
  ids.sharedFlow = await seedFlow(db, ids.commons, { name: 'common', versions: [DEFINITION] });
  ids.r1 = await seedDevice(db, ids.acme, 'r1');
  ids.r2 = await seedDevice(db, ids.acme, 'r2');
  ids.deletedDevice = await seedDevice(db, ids.acme, 'r-old', { deleted: true });
  ids.foreignDevice = await seedDevice(db, ids.globex, 'g1');
  ids.sharedDevice = await seedDevice(db, ids.commons, 'c1');
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

function post(who: string, body: unknown, query = ''): Promise<Response> {
  return fetch(`${daemon.url}/runs${query}`, {
    method: 'POST',
    headers: { authorization: as[who]!, 'content-type': 'application/json', 'x-org-id': 'acme' },
    body: JSON.stringify(body),
  });
}

async function problem(response: Response): Promise<{ status: number; code: string; errors?: { path: string }[]; [k: string]: unknown }> {
  return { status: response.status, ...((await response.json()) as { code: string }) };
}

const runCount = async () => Number((await knex()('runs').count({ n: '*' }))[0]!.n);
const valid = () => ({ flow_id: ids.flow, params: { change_id: 'CHG1' }, targets: { routers: [ids.r1] } });

describe('POST /runs', () => {
  it('admits a run of the newest version with defaults applied, queued, and audits run.started', async () => {
    const response = await post('opal', { ...valid(), name: 'nightly' });
    expect(response.status).toBe(201);
    const run = (await response.json()) as Record<string, unknown>;
    expect(run).toMatchObject({
      org_id: ids.acme,
      name: 'nightly',
      flow_id: ids.flow,
      flow_name: 'upgrade',
      flow_version: 2,
      status: 'queued',
      params: { change_id: 'CHG1', retries: 2, mode: 'check' },
      targets: { routers: [ids.r1] },
      trigger_source: 'manual',
      created_by: 'sub-opal',
      deleted_at: null,
    });
    expect(run.workflow_id).toEqual(`run-${run.id}`);
    expect(response.headers.get('location')).toBe(`/runs/${run.id}`);
    expect(await knex()('runs').where({ id: run.id }).first()).toMatchObject({
      status: 'queued',
      flow_version: 2,
      trigger_source: 'manual',
    });

    const entries = await knex()('audit_logs').where({ event_type: 'run.started', resource_id: run.id });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      org_id: ids.acme,
      actor_sub: 'sub-opal',
      resource_type: 'run',
      action: 'run:trigger',
      outcome: 'success',
    });
    expect(entries[0].details_json).toMatchObject({
      trigger_source: 'manual',
      flow_id: ids.flow,
      flow_version: 2,
      workflow_id: run.workflow_id,
    });
  });

  it('runs a pinned older version, named after the flow by default', async () => {
    const response = await post('opal', { flow_id: ids.flow, version: 1 });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ flow_version: 1, name: 'upgrade', params: {}, targets: {} });
  });

  it('refuses invalid params and targets with every path, and writes nothing', async () => {
    const before = await runCount();
    const response = await post('opal', {
      flow_id: ids.flow,
      params: { change_id: 'nope', retries: 9, extra: 1 },
      targets: { routers: [], firewalls: [ids.r1] },
    });
    const body = await problem(response);
    expect(body).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(body.errors!.map((e) => e.path).sort()).toEqual([
      'params.change_id',
      'params.extra',
      'params.retries',
      'targets.firewalls',
      'targets.routers',
    ]);
    expect(await runCount()).toBe(before);
  });

  it('refuses text no column can store: NUL in a param 422 naming it, an unpaired surrogate anywhere 400; writes nothing', async () => {
    const before = await runCount();
    const nul = await problem(await post('opal', { ...valid(), params: { change_id: 'CHG1\u0000' } }));
    expect(nul).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(nul.errors!.map((e) => e.path)).toEqual(['params.change_id']);
    for (const body of [
      { ...valid(), name: 'night\ud800ly' },
      { ...valid(), params: { change_id: 'CHG1', mode: '\udc00' } },
    ]) {
      const refused = await problem(await post('opal', body));
      expect(refused, JSON.stringify(body)).toMatchObject({ status: 400, code: 'malformed_json' });
    }
    expect(await runCount()).toBe(before);
  });

  it('refuses more devices than a role takes', async () => {
    const response = await post('opal', { ...valid(), targets: { routers: [ids.r1, ids.r2, ids.sharedDevice, UNKNOWN_ID] } });
    expect(await problem(response)).toMatchObject({ status: 422, code: 'validation_failed', errors: [{ path: 'targets.routers' }] });
  });

  it('refuses a malformed body with 422', async () => {
    for (const body of [
      {},
      { flow_id: 'x' },
      { flow_id: ids.flow, version: 0 },
      { flow_id: ids.flow, targets: { routers: ['r1'] } },
      { flow_id: ids.flow, bogus: 1 },
    ]) {
      expect((await problem(await post('opal', body))).code, JSON.stringify(body)).toBe('validation_failed');
    }
  });

  it('refuses devices outside the organization with 400, naming role and id, and writes no run', async () => {
    const before = await runCount();
    for (const device of [ids.foreignDevice, ids.deletedDevice, UNKNOWN_ID]) {
      const body = await problem(await post('opal', { ...valid(), targets: { routers: [ids.r1, device] } }));
      expect(body).toMatchObject({
        status: 400,
        code: 'unknown_device_reference',
        missing: [{ role: 'routers', device_id: device }],
        missing_count: 1,
      });
    }
    expect(await runCount()).toBe(before);
  });

  it('accepts a device of the shared organization, and a device named twice counts once', async () => {
    const response = await post('opal', { ...valid(), targets: { routers: [ids.sharedDevice, ids.r1, ids.sharedDevice!.toUpperCase()] } });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ targets: { routers: [ids.sharedDevice, ids.r1] } });
  });

  it('refuses more targets than the cap with 422 before any lookup (even for an unknown flow)', async () => {
    const before = await runCount();
    const many = Array.from({ length: MAX_TARGETS + 1 }, () => ids.r1!);
    expect(await problem(await post('opal', { flow_id: UNKNOWN_ID, targets: { routers: many } }))).toMatchObject({
      status: 422,
      code: 'too_many_targets',
      limit: MAX_TARGETS,
    });
    expect(
      await problem(await post('opal', { flow_id: ids.flow, targets: { routers: many.slice(0, 3), switches: many.slice(0, 3) } })),
    ).toMatchObject({ code: 'too_many_targets' });
    expect(await runCount()).toBe(before);
  });

  it.each([
    ['unknown', () => UNKNOWN_ID, 404, 'flow_not_found'],
    ['soft-deleted', () => ids.deletedFlow!, 404, 'flow_not_found'],
    ['of another organization', () => ids.foreignFlow!, 404, 'flow_not_found'],
    ['never committed', () => ids.draftOnly!, 400, 'flow_not_committed'],
  ])('refuses a flow that is %s', async (_, flow, status, code) => {
    expect(await problem(await post('opal', { flow_id: flow() }))).toMatchObject({ status, code });
  });

  it('refuses a version the flow lacks with 404', async () => {
    expect(await problem(await post('opal', { flow_id: ids.flow, version: 3 }))).toMatchObject({
      status: 404,
      code: 'flow_version_not_found',
    });
    expect(await problem(await post('opal', { flow_id: ids.draftOnly, version: 1 }))).toMatchObject({
      status: 404,
      code: 'flow_version_not_found',
    });
  });

  it('runs a flow of the shared organization in the active organization', async () => {
    const response = await post('opal', { flow_id: ids.sharedFlow, params: { change_id: 'CHG9' }, targets: { routers: [ids.r2] } });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({ org_id: ids.acme, flow_id: ids.sharedFlow, flow_name: 'common' });
  });

  it('leaves viewers out (run:trigger is operator)', async () => {
    expect(await problem(await post('vic', valid()))).toMatchObject({ status: 403, code: 'forbidden' });
  });
});

describe('the manual-runs switch', () => {
  it("refuses POST /runs with 409 when the flow's manual runs are off", async () => {
    const before = await runCount();
    expect(await problem(await post('opal', { flow_id: ids.locked }))).toMatchObject({ status: 409, code: 'manual_runs_disabled' });
    expect(await problem(await post('ada', { flow_id: ids.locked }))).toMatchObject({ status: 409, code: 'manual_runs_disabled' });
    expect(await runCount()).toBe(before);
  });

  it('lets a platform admin force it, and records the force', async () => {
    const response = await post('root', { flow_id: ids.locked }, '?force=true');
    expect(response.status).toBe(201);
    const run = (await response.json()) as { id: string };
    const entry = await knex()('audit_logs').where({ event_type: 'run.started', resource_id: run.id }).first();
    expect(entry.details_json).toMatchObject({ trigger_source: 'manual', forced: true });
  });

  it('refuses force=true from anyone else with 403 restricted_option, whatever the switch', async () => {
    for (const who of ['opal', 'ada']) {
      for (const flow of [ids.locked, ids.flow]) {
        expect(await problem(await post(who, { flow_id: flow }, '?force=true'))).toMatchObject({
          status: 403,
          code: 'restricted_option',
          restriction: 'force_manual_run',
        });
      }
    }
  });

  it('checks the query, then force, then the body: an invalid query is 422, force from a non-admin is 403 whatever the body', async () => {
    const before = await runCount();
    for (const query of ['?force=maybe', '?force=true&extra=1']) {
      expect(await problem(await post('opal', { flow_id: ids.flow }, query))).toMatchObject({ status: 422, code: 'validation_failed' });
    }
    for (const body of [{}, { flow_id: 'not-a-uuid', extra: true }]) {
      expect(await problem(await post('opal', body, '?force=true'))).toMatchObject({ status: 403, code: 'restricted_option' });
    }
    expect(await problem(await post('root', {}, '?force=true'))).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(await runCount()).toBe(before);
  });

  it('does not stop a webhook admission (called directly), which audits trigger_source webhook', async () => {
    const admission = new RunAdmissionService(new AdmissionRepo(), daemon.services.audit, { maxTargets: MAX_TARGETS });
    const request: AdmissionRequest = {
      orgId: ids.acme!,
      flowId: ids.locked!,
      version: null,
      params: {},
      targets: {},
      trigger: { source: 'webhook', details: { webhook_endpoint_id: UNKNOWN_ID } },
      actor: { sub: 'system:webhook' },
      createdBy: 'system:webhook',
    };
    const admitted = await knex().transaction((trx) => admission.admit(trx, request));
    expect(admitted).toMatchObject({ flow_id: ids.locked, flow_name: 'locked', flow_version: 1, status: 'queued' });
    expect(await knex()('runs').where({ id: admitted.id }).first()).toMatchObject({
      trigger_source: 'webhook',
      created_by: 'system:webhook',
      trigger_details_json: { webhook_endpoint_id: UNKNOWN_ID },
    });
    const entry = await knex()('audit_logs').where({ event_type: 'run.started', resource_id: admitted.id }).first();
    expect(entry).toMatchObject({ actor_sub: 'system:webhook', action: 'webhook:receive', org_id: ids.acme });
    expect(entry.details_json).toMatchObject({
      trigger_source: 'webhook',
      flow_id: ids.locked,
      flow_version: 1,
      workflow_id: admitted.workflow_id,
    });

    // Admission answers a flow that is gone alike for every trigger path, and writes nothing; the webhook
    // trigger answers it 422 (its refusal table, webhooks-trigger.test.ts).
    const refused = await knex()
      .transaction((trx) => admission.admit(trx, { ...request, flowId: ids.deletedFlow! }))
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Problem);
    expect(refused).toMatchObject({ status: 404, code: 'flow_not_found' });
  });
});
