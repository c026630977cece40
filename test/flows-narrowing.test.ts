import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';

let idp: DevIdp;
let daemon: TestDaemon;
const as: Record<string, string> = {};

const knex = () => daemon.services.db.knex;

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' });
  await seedOrg(knex(), 'acme', 'Acme');
  await seedUser(knex(), { sub: 'sub-olga', username: 'olga' }, [{ orgSlug: 'acme', role: 'operator' }]);
  await seedUser(knex(), { sub: 'sub-ada', username: 'ada' }, [{ orgSlug: 'acme', role: 'admin' }]);
  const token = async (sub: string, username: string, realmRoles: string[] = []) =>
    `Bearer ${await idp.mintAccessToken({ sub, username, email: `${username}@acme.test`, realmRoles })}`;
  as.root = await token('sub-root', 'root', ['admin']);
  as.olga = await token('sub-olga', 'olga', ['operator']);
  as.ada = await token('sub-ada', 'ada');
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

function call(who: string, method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: as[who]!, 'x-org-id': 'acme', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function ok(pending: Promise<Response>, status = 200): Promise<Record<string, any>> {
  const response = await pending;
  const body = (response.status === 204 ? {} : await response.json()) as Record<string, any>;
  expect(response.status, JSON.stringify(body)).toBe(status);
  return body;
}

/** The refusal's status, code, restriction and path. */
async function refusal(pending: Promise<Response>): Promise<{ status: number; code: string; restriction?: string; path?: string }> {
  const response = await pending;
  const body = (await response.json()) as { code: string; restriction?: string; path?: string };
  return { status: response.status, code: body.code, restriction: body.restriction, path: body.path };
}

const sleep = (id: string, seconds = 5) => ({ id, handler: 'general.sleep', config: { seconds } });
const container = (id: string, config: Record<string, unknown> = {}) => ({
  id,
  handler: 'container.run',
  config: { image: 'alpine:3.20', command: ['true'], ...config },
});
const hostAccess = (id: string, path: string) => ({ status: 403, code: 'restricted_option', restriction: 'container_host_access', path });
const egress = (path: string) => ({ status: 403, code: 'restricted_option', restriction: 'egress_widening', path });

const flowCount = async () => Number((await knex()('flows').count<{ n: string }[]>('* as n'))[0]!.n);
const draftOf = async (id: string) => (await knex()('flows').where({ id }).first()).draft_json;

describe('host-access options', () => {
  let id: string;

  it('are refused to an operator creating a flow, with nothing written and the refusal audited', async () => {
    const before = await flowCount();
    const body = { name: 'Privileged by olga', definition: { steps: [sleep('a'), container('sandbox', { privileged: true })] } };
    expect(await refusal(call('olga', 'POST', '/flows', body))).toEqual(hostAccess('sandbox', 'steps[1].config.privileged'));
    expect(await flowCount()).toBe(before);
    const denied = await knex()('audit_logs').where({ event_type: 'authz.denied', actor_sub: 'sub-olga', resource_type: 'flow' }).first();
    expect(denied).toMatchObject({
      action: 'flow:manage',
      outcome: 'denied',
      details_json: { restriction: 'container_host_access', path: 'steps[1].config.privileged' },
    });
  });

  it('are refused to an organization admin too: only the platform admin role passes', async () => {
    const body = { name: 'Privileged by ada', definition: { steps: [container('sandbox', { attach_docker_socket: true })] } };
    expect(await refusal(call('ada', 'POST', '/flows', body))).toEqual(hostAccess('sandbox', 'steps[0].config.attach_docker_socket'));
  });

  it('pass for a platform admin', async () => {
    const flow = await ok(
      call('root', 'POST', '/flows', {
        name: 'Privileged',
        definition: { steps: [sleep('a'), container('sandbox', { privileged: true })], edges: [{ from: 'a', to: 'sandbox' }] },
      }),
      201,
    );
    id = flow.id;
    await ok(call('root', 'POST', `/flows/${id}/commit`, { message: 'admin made it privileged' }), 201);
  });

  it('set by an admin stay when an operator edits another step', async () => {
    const edited = await ok(
      call('olga', 'POST', `/flows/${id}/draft`, {
        definition: { steps: [sleep('a', 30), container('sandbox', { privileged: true })], edges: [{ from: 'a', to: 'sandbox' }] },
      }),
    );
    expect(edited.draft.steps[0].config.seconds).toBe(30);
    await ok(
      call('olga', 'PUT', `/flows/${id}`, {
        name: 'Privileged (edited)',
        definition: { steps: [sleep('a', 40), container('sandbox', { privileged: true, memory: '1g' })] },
      }),
    );
  });

  it('may not be added to or changed by the operator on that step', async () => {
    const draft = { steps: [sleep('a', 40), container('sandbox', { privileged: true, memory: '1g', extra_mounts: ['/var/run:/host'] })] };
    expect(await refusal(call('olga', 'POST', `/flows/${id}/draft`, { definition: draft }))).toEqual(
      hostAccess('sandbox', 'steps[1].config.extra_mounts'),
    );
    const moved = { steps: [sleep('a', 40), container('other', { privileged: true })] };
    expect(await refusal(call('olga', 'PUT', `/flows/${id}`, { name: 'Privileged (edited)', definition: moved }))).toEqual(
      hostAccess('other', 'steps[1].config.privileged'),
    );
    expect((await draftOf(id)).steps[1].config).toEqual({ image: 'alpine:3.20', command: ['true'], privileged: true, memory: '1g' });
  });

  it('may be removed by the operator (narrowing is always allowed)', async () => {
    await ok(call('olga', 'POST', `/flows/${id}/draft`, { definition: { steps: [sleep('a'), container('sandbox')] } }));
  });

  it('come back from a version only through a platform admin (restore into draft, revert)', async () => {
    expect(await refusal(call('olga', 'POST', `/flows/${id}/restore/1`))).toEqual(hostAccess('sandbox', 'steps[1].config.privileged'));
    expect(await refusal(call('olga', 'POST', `/flows/${id}/revert-draft`))).toEqual(hostAccess('sandbox', 'steps[1].config.privileged'));
    expect((await draftOf(id)).steps[1].config).not.toHaveProperty('privileged');
    await ok(call('root', 'POST', `/flows/${id}/restore/1`));
    expect((await draftOf(id)).steps[1].config.privileged).toBe(true);
  });

  it('are refused when an operator duplicates the flow, not when an admin does', async () => {
    const before = await flowCount();
    expect(await refusal(call('olga', 'POST', `/flows/${id}/duplicate`, {}))).toEqual(hostAccess('sandbox', 'steps[1].config.privileged'));
    expect(await flowCount()).toBe(before);
    await ok(call('root', 'POST', `/flows/${id}/duplicate`, {}), 201);
  });

  it('do not stop an operator committing a draft that keeps them', async () => {
    await ok(
      call('olga', 'POST', `/flows/${id}/draft`, {
        definition: { steps: [sleep('a', 60), container('sandbox', { privileged: true })], edges: [{ from: 'a', to: 'sandbox' }] },
      }),
    );
    expect((await ok(call('olga', 'POST', `/flows/${id}/commit`, {}), 201)).version).toBe(2);
  });
});

describe('egress widening', () => {
  const policy = { egress_mode: 'allow-listed', egress_allow: ['10.0.0.0/8:443/tcp'], egress_deny: ['10.9.0.0/16'] };
  const flowWith = (config: Record<string, unknown>, networkPolicy: unknown = policy) => ({
    network_policy: networkPolicy,
    steps: [container('fetch', config)],
  });
  let id: string;

  it('is allowed within the flow policy', async () => {
    id = (
      await ok(
        call('olga', 'POST', '/flows', {
          name: 'Egress',
          definition: flowWith({ egress_mode: 'allow-listed', egress_allow: ['10.0.0.0/8:443/tcp'] }),
        }),
        201,
      )
    ).id;
    await ok(call('olga', 'POST', `/flows/${id}/draft`, { definition: flowWith({ egress_mode: 'deny-all' }) }));
  });

  it.each([
    ['a more open step mode', { egress_mode: 'open' }, 'steps[0].config.egress_mode'],
    ["an allow rule outside the flow's list", { egress_allow: ['192.168.0.0/16:22/tcp'] }, 'steps[0].config.egress_allow[0]'],
    ["a deny list without the flow's deny rules", { egress_deny: ['172.16.0.0/12'] }, 'steps[0].config.egress_deny'],
  ])('refuses an operator %s', async (_, config, path) => {
    const before = await draftOf(id);
    expect(await refusal(call('olga', 'POST', `/flows/${id}/draft`, { definition: flowWith(config) }))).toEqual(egress(path));
    expect(await draftOf(id)).toEqual(before);
  });

  it('of the flow policy itself is refused to an operator, narrowing it is not', async () => {
    expect(
      await refusal(call('olga', 'POST', `/flows/${id}/draft`, { definition: flowWith({}, { ...policy, egress_mode: 'open' }) })),
    ).toEqual(egress('network_policy.egress_mode'));
    expect(
      await refusal(call('olga', 'POST', `/flows/${id}/draft`, { definition: flowWith({}, { ...policy, egress_allow: ['0.0.0.0/0'] }) })),
    ).toEqual(egress('network_policy.egress_allow[0]'));
    expect(await refusal(call('olga', 'POST', `/flows/${id}/draft`, { definition: flowWith({}, { ...policy, egress_deny: [] }) }))).toEqual(
      egress('network_policy.egress_deny'),
    );
    await ok(call('olga', 'POST', `/flows/${id}/draft`, { definition: flowWith({}, { egress_mode: 'deny-all' }) }));
  });

  it('passes for a platform admin', async () => {
    await ok(call('root', 'POST', `/flows/${id}/draft`, { definition: flowWith({ egress_mode: 'open' }, { egress_mode: 'open' }) }));
    // …and what the admin set stays while the operator edits the rest of the step.
    await ok(
      call('olga', 'POST', `/flows/${id}/draft`, {
        definition: flowWith({ egress_mode: 'open', memory: '512m' }, { egress_mode: 'open' }),
      }),
    );
  });
});

describe('narrowing and overrides', () => {
  it("is not reallocated by lowering the action's policy", async () => {
    await ok(call('root', 'PUT', '/settings/permissions/actions/override', { action: 'flow:manage', policy: 'viewer' }));
    try {
      await seedUser(knex(), { sub: 'sub-val', username: 'val' }, [{ orgSlug: 'acme', role: 'viewer' }]);
      as.val = `Bearer ${await idp.mintAccessToken({ sub: 'sub-val', username: 'val', email: 'val@acme.test', realmRoles: [] })}`;
      await ok(call('val', 'POST', '/flows', { name: 'Viewer may now create' }), 201);
      const body = { name: 'Viewer privileged', definition: { steps: [container('c', { pid_mode: 'host' })] } };
      expect(await refusal(call('val', 'POST', '/flows', body))).toEqual(hostAccess('c', 'steps[0].config.pid_mode'));
    } finally {
      await ok(call('root', 'DELETE', '/settings/permissions/actions/override?action=flow:manage'));
    }
  });
});
