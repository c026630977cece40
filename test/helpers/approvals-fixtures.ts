import type { Knex } from 'knex';
import { startDevIdp, type DevIdp } from '../../src/daemon/dev-idp/index.js';
import type { ApprovalGate, FlowDefinition } from '../../src/shared/flows/definition.js';
import { admitRun, callback, INTERNAL_TOKEN, json } from './callbacks-fixtures.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { seedFlow } from './runs-fixtures.js';
import { beat, type HeartbeatAnswer } from './workers-fixtures.js';
import { seedOrg, seedUser } from './seed.js';

/** noop -> gated noop -> noop: the issue's flow, the middle step carrying `gate`. */
export function gatedFlow(gate: ApprovalGate): FlowDefinition {
  return {
    steps: [
      { id: 'first', handler: 'general.noop', config: {} },
      { id: 'gate', handler: 'general.noop', config: {}, approval: gate },
      { id: 'last', handler: 'general.noop', config: {} },
    ],
    edges: [
      { from: 'first', to: 'gate' },
      { from: 'gate', to: 'last' },
    ],
    inputs: [],
    target_roles: [],
  } as unknown as FlowDefinition;
}

/** The people of the approvals world, by name: `Authorization` headers. */
export interface People {
  /** Admin of acme (admin holds approve and start): starts the runs. */
  readonly ada: string;
  /** Approvers of acme. */
  readonly abe: string;
  readonly amy: string;
  /** A second admin of acme (for gates naming the `admin` role). */
  readonly ali: string;
  /** Viewer of acme. */
  readonly vic: string;
  /** Approver of the organization `other`. */
  readonly oscar: string;
  /** A platform admin with no membership in acme. */
  readonly root: string;
}

/** A daemon with the worker token, organizations `acme` and `other`, their people, and gated flows by name. */
export interface ApprovalsWorld {
  readonly daemon: TestDaemon;
  readonly idp: DevIdp;
  readonly knex: Knex;
  readonly orgId: string;
  readonly people: People;
  readonly flows: Record<string, string>;
  /** The callbacks' and workers' fixtures ask for these: the plain gated flow, ada, vic. */
  readonly flowId: string;
  readonly operator: string;
  readonly viewer: string;
  close(): Promise<void>;
}

export const FLOWS: Record<string, FlowDefinition> = {
  plain: gatedFlow({}),
  two: gatedFlow({ required_approvals: 2 }),
  admins: gatedFlow({ approver_role: 'admin' }),
  starter: gatedFlow({ allow_starter: true }),
  never: gatedFlow({ timeout_seconds: 0 }),
  timeoutApprove: gatedFlow({ timeout_seconds: 60, timeout_action: 'approve' }),
  timeoutReject: gatedFlow({ timeout_seconds: 60, timeout_action: 'reject' }),
};

export async function startApprovalsWorld(): Promise<ApprovalsWorld> {
  const idp = await startDevIdp();
  const daemon = await startTestDaemon({
    SERVICE_IDP_ISSUER: idp.issuer,
    SERVICE_ORG_AUTO_JOIN: 'false',
    SERVICE_INTERNAL_API_TOKEN: INTERNAL_TOKEN,
    // Tests end leases themselves.
    SERVICE_RUN_REAPER_INTERVAL_SECONDS: '3600',
  });
  const knex = daemon.services.db.knex;
  const orgId = await seedOrg(knex, 'acme');
  await seedOrg(knex, 'other');
  const member = async (name: string, org: string, role: string, realmRoles: string[] = []) => {
    await seedUser(knex, { sub: `sub-${name}`, username: name }, org ? [{ orgSlug: org, role }] : []);
    return `Bearer ${await idp.mintAccessToken({ sub: `sub-${name}`, username: name, realmRoles })}`;
  };
  const people: People = {
    ada: await member('ada', 'acme', 'admin'),
    abe: await member('abe', 'acme', 'approver'),
    amy: await member('amy', 'acme', 'approver'),
    ali: await member('ali', 'acme', 'admin'),
    vic: await member('vic', 'acme', 'viewer'),
    oscar: await member('oscar', 'other', 'approver'),
    root: await member('root', '', '', ['admin']),
  };
  const flows: Record<string, string> = {};
  for (const [name, definition] of Object.entries(FLOWS)) flows[name] = await seedFlow(knex, orgId, { name, versions: [definition] });
  return {
    daemon,
    idp,
    knex,
    orgId,
    people,
    flows,
    flowId: flows.plain!,
    operator: people.ada,
    viewer: people.vic,
    close: async () => {
      await daemon.close();
      await idp.stop();
    },
  };
}

/** A request as a person of the world, in acme unless told otherwise. */
export function asPerson(
  world: ApprovalsWorld,
  who: string,
  method: string,
  path: string,
  options: { body?: unknown; org?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { authorization: who, 'x-org-id': options.org ?? 'acme' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  return fetch(`${world.daemon.url}${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
}

/** `POST /internal/workers/heartbeat` as `workerId` until it is handed `runId` (others it is handed go back); answers the assignment. */
export async function claimRun(world: ApprovalsWorld, runId: string, workerId = 'w1'): Promise<Assignment> {
  for (let round = 0; round < 20; round++) {
    const answer = await beat(world, { worker_id: workerId, free_slots: 50 });
    const others = answer.assignments.filter((a) => a.run_id !== runId);
    if (others.length > 0) {
      await beat(world, { worker_id: workerId, released: others.map((a) => ({ run_id: a.run_id, attempt: a.attempt })) });
    }
    const mine = answer.assignments.find((a) => a.run_id === runId);
    if (mine) return mine as Assignment;
  }
  throw new Error(`run ${runId} was never claimed`);
}

export type Assignment = HeartbeatAnswer['assignments'][number] & {
  completed_steps?: Record<string, { outputs: Record<string, unknown> }>;
  approved_steps?: string[];
};

/** The worker runs a step to success in its attempt (`outputs` given). */
export async function succeedStep(
  world: ApprovalsWorld,
  runId: string,
  stepId: string,
  holder: { worker: string; attempt: number },
  outputs: Record<string, unknown> = {},
): Promise<void> {
  const created = await json<{ id: string }>(
    await callback(world, 'POST', `/internal/runs/${runId}/step-runs`, { ...holder, body: { step_id: stepId, handler: 'general.noop' } }),
    201,
  );
  await json(await callback(world, 'PATCH', `/internal/step-runs/${created.id}`, { ...holder, body: { status: 'succeeded', outputs } }));
}

export interface WaitingRun {
  readonly runId: string;
  readonly approvalId: string;
  readonly approval: Record<string, unknown>;
}

/**
 * A run of `flow` started by ada, claimed by `w1` over the heartbeat, its first step run, and its gate
 * asked for: the run awaits the approval.
 */
export async function waitingRun(world: ApprovalsWorld, flow = 'plain', workerId = 'w1'): Promise<WaitingRun> {
  const run = await admitRun(world, world.flows[flow]);
  const assignment = await claimRun(world, run.id, workerId);
  const holder = { worker: workerId, attempt: assignment.attempt };
  await succeedStep(world, run.id, 'first', holder, { answer: 42 });
  const approval = await json<Record<string, unknown>>(
    await callback(world, 'POST', `/internal/runs/${run.id}/approvals`, { ...holder, body: { step_id: 'gate', message: 'Go ahead?' } }),
    201,
  );
  return { runId: run.id, approvalId: approval.id as string, approval };
}

/** `POST /approvals/{id}/decision` as `who`. */
export function decide(
  world: ApprovalsWorld,
  who: string,
  approvalId: string,
  decision: 'approve' | 'reject',
  comment?: string,
): Promise<Response> {
  return asPerson(world, who, 'POST', `/approvals/${approvalId}/decision`, { body: { decision, ...(comment ? { comment } : {}) } });
}
