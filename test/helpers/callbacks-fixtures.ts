import type { Knex } from 'knex';
import { startDevIdp, type DevIdp } from '../../src/daemon/dev-idp/index.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { BARE, seedFlow } from './runs-fixtures.js';
import { seedOrg, seedUser } from './seed.js';

export const INTERNAL_TOKEN = 'worker-secret-0123456789-abcdefghij';

/** A daemon with the worker token set, an organization `acme` with an operator, and a committed flow `alpha`. */
export interface CallbacksWorld {
  readonly daemon: TestDaemon;
  readonly idp: DevIdp;
  readonly knex: Knex;
  readonly orgId: string;
  readonly flowId: string;
  /** `Authorization` of the operator `opal` of acme. */
  readonly operator: string;
  close(): Promise<void>;
}

/** `env` adds settings of the daemon's. */
export async function startCallbacksWorld(env: Record<string, string> = {}): Promise<CallbacksWorld> {
  const idp = await startDevIdp();
  const daemon = await startTestDaemon({
    SERVICE_IDP_ISSUER: idp.issuer,
    SERVICE_ORG_AUTO_JOIN: 'false',
    SERVICE_INTERNAL_API_TOKEN: INTERNAL_TOKEN,
    ...env,
  });
  const knex = daemon.services.db.knex;
  const orgId = await seedOrg(knex, 'acme');
  await seedUser(knex, { sub: 'sub-opal', username: 'opal' }, [{ orgSlug: 'acme', role: 'operator' }]);
  const operator = `Bearer ${await idp.mintAccessToken({ sub: 'sub-opal', username: 'opal', realmRoles: [] })}`;
  const flowId = await seedFlow(knex, orgId, { name: 'alpha', versions: [BARE] });
  return {
    daemon,
    idp,
    knex,
    orgId,
    flowId,
    operator,
    close: async () => {
      await daemon.close();
      await idp.stop();
    },
  };
}

export interface RunAnswer {
  readonly id: string;
  readonly status: string;
  readonly [key: string]: unknown;
}

/** A run admitted through POST /runs (queued), as an operator of acme. */
export async function admitRun(world: CallbacksWorld, flowId = world.flowId): Promise<RunAnswer> {
  const response = await fetch(`${world.daemon.url}/runs`, {
    method: 'POST',
    headers: { authorization: world.operator, 'x-org-id': 'acme', 'content-type': 'application/json' },
    body: JSON.stringify({ flow_id: flowId }),
  });
  if (response.status !== 201) throw new Error(`POST /runs answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as RunAnswer;
}

/** What a claim would have done (the claim is another part's): running, held by `workerId` in `attempt`, a lease ahead. */
export async function holdRun(knex: Knex, runId: string, workerId = 'w1', attempt = 1): Promise<void> {
  await knex('runs')
    .where({ id: runId })
    .update({
      status: 'running',
      worker_id: workerId,
      attempt,
      claimed_at: knex.fn.now(),
      started_at: knex.fn.now(),
      lease_expires_at: knex.raw(`now() + interval '5 minutes'`),
    });
}

/** An admitted run, held by `w1` in attempt 1. */
export async function heldRun(world: CallbacksWorld, flowId = world.flowId): Promise<string> {
  const run = await admitRun(world, flowId);
  await holdRun(world.knex, run.id);
  return run.id;
}

export interface CallOptions {
  readonly body?: unknown;
  /** The fencing headers; `null` leaves them out. */
  readonly worker?: string | null;
  readonly attempt?: string | number | null;
  /** `null` sends no token. */
  readonly token?: string | null;
  readonly rawBody?: string;
}

/** A callback as the worker sends it: the worker token and, unless told otherwise, `X-Worker-Id: w1`, `X-Run-Attempt: 1`. */
export function callback(world: CallbacksWorld, method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  const token = options.token === undefined ? INTERNAL_TOKEN : options.token;
  if (token !== null) headers['x-internal-token'] = token;
  const worker = options.worker === undefined ? 'w1' : options.worker;
  if (worker !== null) headers['x-worker-id'] = worker;
  const attempt = options.attempt === undefined ? 1 : options.attempt;
  if (attempt !== null) headers['x-run-attempt'] = String(attempt);
  const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${world.daemon.url}${path}`, { method, headers, body });
}

export async function json<T = Record<string, unknown>>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

export async function problemOf(response: Response): Promise<{ status: number; code: string; errors?: { path: string }[] }> {
  const body = (await response.json()) as { code: string; errors?: { path: string }[] };
  return { status: response.status, code: body.code, ...(body.errors ? { errors: body.errors } : {}) };
}

/** The run's events in order. */
export function eventsOf(
  knex: Knex,
  runId: string,
): Promise<{ seq: string; type: string; worker_seq: string | null; data: Record<string, unknown> }[]> {
  return knex('run_events').where({ run_id: runId }).orderBy('seq').select('seq', 'type', 'worker_seq', 'data', 'step_id', 'attempt');
}
