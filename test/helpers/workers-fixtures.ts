import { startDevIdp, type DevIdp } from '../../src/daemon/dev-idp/index.js';
import { LeaseEnds } from '../../src/daemon/domains/workers/lease-ends.js';
import { LeasesRepo } from '../../src/daemon/domains/workers/leases-repo.js';
import { Reaper } from '../../src/daemon/domains/workers/reaper.js';
import type { FlowDefinition } from '../../src/shared/flows/definition.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { seedFlow } from './runs-fixtures.js';
import { seedOrg, seedUser } from './seed.js';

export const INTERNAL_TOKEN = 'worker-secret-0123456789-abcdefghij';

export const TWO_STEPS: FlowDefinition = {
  steps: [
    { id: 'first', handler: 'general.noop', config: {} },
    { id: 'second', handler: 'general.noop', config: {} },
  ],
  edges: [{ from: 'first', to: 'second' }],
  inputs: [{ name: 'change_id', type: 'string', default: 'CHG0' }],
  target_roles: [],
} as unknown as FlowDefinition;

export interface Assignment {
  run_id: string;
  attempt: number;
  workflow_id: string;
  org_id: string;
  flow_id: string | null;
  flow_version: number;
  name: string;
  definition: Record<string, unknown>;
  params: Record<string, unknown>;
  targets: Record<string, string[]>;
  run_vars: Record<string, unknown>;
  status: string;
  lease_expires_at: string;
}

export interface HeartbeatAnswer {
  assignments: Assignment[];
  cancel: string[];
  pause: string[];
  lost: string[];
  heartbeat_s: number;
  lease_s: number;
}

/** A daemon with the internal token, an identity provider, an organization `acme` with an operator and a viewer, and one flow. */
export interface WorkerWorld {
  readonly daemon: TestDaemon;
  readonly idp: DevIdp;
  readonly orgId: string;
  readonly flowId: string;
  readonly operator: string;
  /** A platform viewer (realm role). */
  readonly viewer: string;
  close(): Promise<void>;
}

export async function startWorkerWorld(env: Record<string, string> = {}): Promise<WorkerWorld> {
  const idp = await startDevIdp();
  const daemon = await startTestDaemon({
    SERVICE_IDP_ISSUER: idp.issuer,
    SERVICE_ORG_AUTO_JOIN: 'false',
    SERVICE_INTERNAL_API_TOKEN: INTERNAL_TOKEN,
    SERVICE_RUN_LEASE_SECONDS: '3',
    // Tests call the reaper (or the maintenance pass) themselves: the maintenance timer, whose interval
    // this former setting still sets, waits an hour.
    SERVICE_RUN_REAPER_INTERVAL_SECONDS: '3600',
    ...env,
  });
  const knex = daemon.services.db.knex;
  const orgId = await seedOrg(knex, 'acme');
  await seedUser(knex, { sub: 'sub-opal', username: 'opal' }, [{ orgSlug: 'acme', role: 'operator' }]);
  await seedUser(knex, { sub: 'sub-vic', username: 'vic' }, [{ orgSlug: 'acme', role: 'viewer' }]);
  const flowId = await seedFlow(knex, orgId, { name: 'two-steps', versions: [TWO_STEPS] });
  const operator = `Bearer ${await idp.mintAccessToken({ sub: 'sub-opal', username: 'opal', realmRoles: [] })}`;
  // `GET /workers` is platform-scoped: decided on realm roles.
  const viewer = `Bearer ${await idp.mintAccessToken({ sub: 'sub-vic', username: 'vic', realmRoles: ['viewer'] })}`;
  return {
    daemon,
    idp,
    orgId,
    flowId,
    operator,
    viewer,
    close: async () => {
      await daemon.close();
      await idp.stop();
    },
  };
}

export function heartbeat(world: WorkerWorld, body: unknown, token = INTERNAL_TOKEN): Promise<Response> {
  return fetch(`${world.daemon.url}/internal/workers/heartbeat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-internal-token': token },
    body: JSON.stringify(body),
  });
}

export async function beat(world: WorkerWorld, body: Record<string, unknown>): Promise<HeartbeatAnswer> {
  const response = await heartbeat(world, body);
  if (response.status !== 200) throw new Error(`heartbeat answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as HeartbeatAnswer;
}

/** Starts a run through `POST /runs`; answers its id. */
export async function startRun(world: WorkerWorld, params: Record<string, unknown> = {}): Promise<string> {
  const response = await fetch(`${world.daemon.url}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: world.operator, 'x-org-id': 'acme' },
    body: JSON.stringify({ flow_id: world.flowId, params }),
  });
  if (response.status !== 201) throw new Error(`POST /runs answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { id: string }).id;
}

/** `POST /runs/{id}/cancel|pause|resume` as the operator. */
export async function control(world: WorkerWorld, runId: string, command: 'cancel' | 'pause' | 'resume'): Promise<void> {
  const response = await fetch(`${world.daemon.url}/runs/${runId}/${command}`, {
    method: 'POST',
    headers: { authorization: world.operator, 'x-org-id': 'acme' },
  });
  if (response.status !== 200) throw new Error(`${command} answered ${response.status}: ${await response.text()}`);
}

/** Cancels every queued run, so a test's leftovers are not claimed by the next. */
export async function emptyQueue(world: WorkerWorld): Promise<void> {
  await world.daemon.services.db
    .knex('runs')
    .whereIn('status', ['queued', 'paused'])
    .update({ status: 'cancelled', lease_expires_at: null });
}

/** The reaper over the world's database, as the daemon builds it, for tests to run a pass when they choose. */
export function reaperOf(world: WorkerWorld): Reaper {
  const { db, audit } = world.daemon.services;
  const leases = new LeasesRepo(db.knex);
  return new Reaper(leases, new LeaseEnds(leases, audit));
}
