import { createHmac } from 'node:crypto';
import type { Knex } from 'knex';
import { startDevIdp, type DevIdp } from '../../src/daemon/dev-idp/index.js';
import type { FlowDefinition } from '../../src/shared/flows/definition.js';
import type { DaemonOptions } from '../../src/daemon/daemon.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { seedOrg, seedUser } from './seed.js';

/**
 * What the webhook tests share: a daemon with three organizations (acme, globex, and the shared one,
 * commons), users of each role, flows and devices seeded with the fixed schemas (/work/briefs/schemas.md),
 * secrets and endpoints made through the API, and a sender that signs with node:crypto directly (not the
 * project's helper, so a mistake there cannot hide behind the same mistake here).
 */

/** A definition with no inputs and no target roles: any body runs it. */
export const BARE: FlowDefinition = { steps: [], edges: [], inputs: [], target_roles: [] };

/** One optional input and two target roles, so related_targets have somewhere to land. */
export const TARGETED: FlowDefinition = {
  steps: [{ id: 'noop', handler: 'general.noop', config: {}, target_role: 'routers' }],
  edges: [],
  inputs: [{ name: 'change_id', type: 'string', pattern: 'CHG[0-9]+' }],
  target_roles: [{ name: 'routers' }, { name: 'switches' }],
};

export const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';

export interface World {
  readonly idp: DevIdp;
  readonly daemon: TestDaemon;
  /** The daemon over IPv4 loopback (it may listen on `::`, dual-stack). */
  readonly url: string;
  /** The daemon over IPv6 loopback, when it listens on `::`. */
  readonly url6: string;
  readonly ids: Record<string, string>;
  readonly as: Record<string, string>;
  knex(): Knex;
  close(): Promise<void>;
}

/**
 * acme: alice (admin), dave (operator), carol (viewer); globex: bob (admin); commons (shared): sam (admin);
 * root is a platform admin.
 */
export async function startWorld(env: Record<string, string> = {}, options: Omit<DaemonOptions, 'database'> = {}): Promise<World> {
  const idp = await startDevIdp();
  const daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false', ...env }, options);
  const db = daemon.services.db.knex;
  const ids: Record<string, string> = {};
  ids.acme = await seedOrg(db, 'acme', 'Acme');
  ids.globex = await seedOrg(db, 'globex', 'Globex');
  ids.commons = await seedOrg(db, 'commons', 'Commons');
  await db('organizations').where({ id: ids.commons }).update({ is_shared: true });
  daemon.services.orgAccess.invalidate();
  await seedUser(db, { sub: 'sub-alice', username: 'alice' }, [{ orgSlug: 'acme', role: 'admin' }]);
  await seedUser(db, { sub: 'sub-dave', username: 'dave' }, [{ orgSlug: 'acme', role: 'operator' }]);
  await seedUser(db, { sub: 'sub-carol', username: 'carol' }, [{ orgSlug: 'acme', role: 'viewer' }]);
  await seedUser(db, { sub: 'sub-bob', username: 'bob' }, [{ orgSlug: 'globex', role: 'admin' }]);
  await seedUser(db, { sub: 'sub-sam', username: 'sam' }, [{ orgSlug: 'commons', role: 'admin' }]);
  const as: Record<string, string> = {};
  for (const who of ['alice', 'dave', 'carol', 'bob', 'sam']) {
    as[who] = `Bearer ${await idp.mintAccessToken({ sub: `sub-${who}`, username: who, email: `${who}@example.test`, realmRoles: [] })}`;
  }
  as.root = `Bearer ${await idp.mintAccessToken({ sub: 'sub-root', username: 'root', email: 'root@example.test', realmRoles: ['admin'] })}`;
  const port = new URL(daemon.url).port;
  return {
    idp,
    daemon,
    url: `http://127.0.0.1:${port}`,
    url6: `http://[::1]:${port}`,
    ids,
    as,
    knex: () => daemon.services.db.knex,
    close: async () => {
      await daemon.close();
      await idp.stop();
    },
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** A management call as `who` (a key of `world.as`) in organization `org`, with `headers` besides. */
export async function call(
  world: World,
  who: string,
  method: string,
  path: string,
  body?: unknown,
  org = 'acme',
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${world.url}${path}`, {
    method,
    headers: {
      authorization: world.as[who]!,
      'x-org-id': org,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return answer(response);
}

export async function seedFlow(
  knex: Knex,
  orgId: string,
  seed: { name: string; versions?: readonly FlowDefinition[]; manualRuns?: boolean; deleted?: boolean },
): Promise<string> {
  const versions = seed.versions ?? [];
  const [row] = await knex('flows')
    .insert({
      org_id: orgId,
      name: seed.name,
      draft_json: JSON.stringify(versions.at(-1) ?? BARE),
      draft_dirty: versions.length === 0,
      latest_version: versions.length,
      manual_runs_enabled: seed.manualRuns ?? true,
      deleted_at: seed.deleted ? knex.fn.now() : null,
    })
    .returning('id');
  const flowId = (row as { id: string }).id;
  for (const [i, definition] of versions.entries()) {
    await knex('flow_versions').insert({
      flow_id: flowId,
      version: i + 1,
      definition_json: JSON.stringify(definition),
      committed_by: 'sub-seed',
    });
  }
  return flowId;
}

export async function seedDevice(
  knex: Knex,
  orgId: string,
  name: string,
  provider?: { provider_id: string; external_id: string },
): Promise<string> {
  const [row] = await knex('devices')
    .insert({
      org_id: orgId,
      name,
      hostname: `${name}.example.test`,
      platform: 'ios-xe',
      provider_id: provider?.provider_id ?? null,
      external_id: provider?.external_id ?? null,
    })
    .returning('id');
  return (row as { id: string }).id;
}

/** A secret of `org` holding `{value}` in the built-in backend, through `POST /secrets`; answers its id. */
export async function createSecret(world: World, who: string, name: string, value: string, org = 'acme'): Promise<string> {
  const created = await call(world, who, 'POST', '/secrets', { name, values: { value } }, org);
  if (created.status !== 201) throw new Error(`POST /secrets answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body.id as string;
}

export interface Endpoint {
  readonly id: string;
  readonly path_token: string;
  readonly [key: string]: unknown;
}

export async function createEndpoint(world: World, fields: Record<string, unknown>, who = 'alice', org = 'acme'): Promise<Endpoint> {
  const created = await call(world, who, 'POST', '/webhooks', { name: `hook ${Math.random().toString(36).slice(2, 10)}`, ...fields }, org);
  if (created.status !== 201) throw new Error(`POST /webhooks answered ${created.status}: ${JSON.stringify(created.body)}`);
  return created.body as Endpoint;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

/** The spec's signature, computed here with node:crypto: lowercase hex HMAC-SHA256 of `<timestamp>.<raw body>`. */
export function sign(key: string, timestamp: string, body: string | Buffer): string {
  return createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(`${timestamp}.`, 'utf8'), Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')]))
    .digest('hex');
}

/** Headers of a correctly signed request for `body` right now. */
export function signed(key: string, body: string | Buffer, extra: Record<string, string> = {}): Record<string, string> {
  const timestamp = String(nowSeconds());
  return { 'x-service-timestamp': timestamp, 'x-service-signature': sign(key, timestamp, body), ...extra };
}

/** `POST /hooks/{token}` with exactly these bytes and headers. */
export async function hook(
  world: World,
  token: string,
  body: string | Buffer,
  headers: Record<string, string> = {},
  base = world.url,
): Promise<Answer> {
  const response = await fetch(`${base}/hooks/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return answer(response);
}

/** A signed trigger of `payload` (serialised once, and those bytes signed and sent). */
export function fire(world: World, endpoint: Endpoint, key: string, payload: unknown, extra: Record<string, string> = {}): Promise<Answer> {
  const body = JSON.stringify(payload);
  return hook(world, endpoint.path_token, body, signed(key, body, extra));
}

export const deliveriesOf = (world: World, endpointId: string) =>
  world.knex()('webhook_deliveries').where({ webhook_endpoint_id: endpointId }).orderBy('created_at').select();
export const auditsOf = (world: World, eventType: string, resourceId: string) =>
  world.knex()('audit_logs').where({ event_type: eventType, resource_id: resourceId }).orderBy('ts').select();
export const runsOfEndpoint = (world: World, endpointId: string) =>
  world.knex()('runs').whereRaw("trigger_details_json->>'webhook_endpoint_id' = ?", [endpointId]).select();
export const count = async (query: Knex.QueryBuilder) => Number(((await query.count({ n: '*' })) as { n: string | number }[])[0]!.n);

/** Runs `work` and answers the statements the world's daemon sent meanwhile. */
export async function statementsDuring(world: World, work: () => Promise<unknown>): Promise<string[]> {
  return (await queriesDuring(world, work)).map((query) => query.sql);
}

/** The statements sent while `work` runs, with their values. */
export async function queriesDuring(world: World, work: () => Promise<unknown>): Promise<{ sql: string; bindings: readonly unknown[] }[]> {
  const seen: { sql: string; bindings: readonly unknown[] }[] = [];
  const listener = (query: { sql: string; bindings?: readonly unknown[] }) => seen.push({ sql: query.sql, bindings: query.bindings ?? [] });
  world.knex().on('query', listener);
  try {
    await work();
  } finally {
    world.knex().off('query', listener);
  }
  return seen;
}

/** How many run admissions each admission statement among `queries` carried (its one value is their JSON array). */
export function admissionsPerStatement(queries: readonly { sql: string; bindings: readonly unknown[] }[]): number[] {
  return queries
    .filter((query) => /INSERT INTO runs/.test(query.sql))
    .map((query) => (JSON.parse(String(query.bindings[0])) as unknown[]).length);
}
