import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalGate, FlowDefinition } from '../src/shared/flows/definition.js';
import { ReferenceWorker } from '../src/worker/worker.js';
import { asPerson, startApprovalsWorld, type ApprovalsWorld } from './helpers/approvals-fixtures.js';
import { INTERNAL_TOKEN } from './helpers/callbacks-fixtures.js';
import { seedFlow } from './helpers/runs-fixtures.js';

/**
 * Issue 20's approvals end to end: the reference worker (in-process, speaking HTTP to a real daemon)
 * runs noop -> gated noop -> noop; people decide over the API; a timeout is decided by the maintenance
 * tick (`POST /internal/maintenance/tick`, its job `approvals.expire_due`). In acme, ada (admin: she may start and, by role,
 * approve) starts every run, so a 403 `separation_of_duties` to her is the starter rule and not the role
 * check; abe and amy are approvers.
 */
let world: ApprovalsWorld;
let worker: ReferenceWorker;
const flows: Record<string, string> = {};

/** The flow; the first step's output is read by the gate's message and by the last step. */
function gated(gate: ApprovalGate): FlowDefinition {
  return {
    steps: [
      { id: 'prepare', handler: 'general.noop', config: { outputs: { change: 'CHG-42' } } },
      { id: 'gate', handler: 'general.noop', config: {}, approval: { message: 'Apply {{ steps.prepare.outputs.change }}?', ...gate } },
      {
        id: 'apply',
        handler: 'general.noop',
        config: { outputs: { applied: '{{ steps.prepare.outputs.change }}', attempt: '{{ run.attempt }}' } },
      },
    ],
    edges: [
      { from: 'prepare', to: 'gate' },
      { from: 'gate', to: 'apply' },
    ],
    inputs: [],
    target_roles: [],
  } as unknown as FlowDefinition;
}

beforeAll(async () => {
  world = await startApprovalsWorld();
  const gates: Record<string, ApprovalGate> = {
    one: {},
    two: { required_approvals: 2 },
    expireApprove: { timeout_seconds: 60, timeout_action: 'approve' },
    expireReject: { timeout_seconds: 60, timeout_action: 'reject' },
  };
  for (const [name, gate] of Object.entries(gates))
    flows[name] = await seedFlow(world.knex, world.orgId, { name: `e2e-${name}`, versions: [gated(gate)] });
  worker = new ReferenceWorker({
    serverUrl: world.daemon.url,
    internalApiToken: INTERNAL_TOKEN,
    workerId: 'approvals-e2e-worker',
    capacity: 4,
    shutdownGraceSeconds: 5,
  });
  worker.start();
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await world?.close();
});

interface RunRow {
  status: string;
  attempt: number;
  worker_id: string | null;
  outputs_json: Record<string, unknown>;
  error_json: { code?: string; step_id?: string; approval_id?: string } | null;
}
interface Approval {
  id: string;
  status: string;
  message: string | null;
  approvals_count: number;
  timeout_outcome: string | null;
  decisions: { user_id: string; decision: string; comment: string | null }[];
}

const runRow = async (id: string) => (await world.knex('runs').where({ id }).first()) as RunRow;
const stepRuns = async (runId: string) =>
  (await world.knex('step_runs').where({ run_id: runId }).orderBy('created_at')) as { step_id: string; status: string; attempt: number }[];

async function until(what: string, done: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const untilStatus = (runId: string, status: string) => until(`run ${runId} ${status}`, async () => (await runRow(runId)).status === status);

/** ada starts a run of `flow`; the worker takes it to its gate. Answers the run id and its approval. */
async function runAtGate(flow: string): Promise<{ runId: string; approval: Approval }> {
  const started = await asPerson(world, world.people.ada, 'POST', '/runs', { body: { flow_id: flows[flow] } });
  expect(started.status, await started.clone().text()).toBe(201);
  const runId = ((await started.json()) as { id: string }).id;
  await untilStatus(runId, 'awaiting_approval');
  const listed = await asPerson(world, world.people.abe, 'GET', `/runs/${runId}/approvals`);
  expect(listed.status).toBe(200);
  const { items } = (await listed.json()) as { items: Approval[] };
  expect(items).toHaveLength(1);
  return { runId, approval: items[0]! };
}

/** `POST /internal/maintenance/tick`, as an external scheduler calls it; answers the approval expiry job's part. */
async function expiryOfTick(): Promise<unknown> {
  const response = await fetch(`${world.daemon.url}/internal/maintenance/tick`, {
    method: 'POST',
    headers: { 'x-internal-token': INTERNAL_TOKEN },
  });
  expect(response.status).toBe(200);
  const { jobs } = (await response.json()) as { jobs: { name: string }[] };
  return jobs.find((job) => job.name === 'approvals.expire_due');
}

async function decide(who: string, approvalId: string, decision: 'approve' | 'reject', comment?: string) {
  const response = await asPerson(world, who, 'POST', `/approvals/${approvalId}/decision`, {
    body: { decision, ...(comment === undefined ? {} : { comment }) },
  });
  return { status: response.status, body: (await response.json()) as Approval & { code?: string } };
}

describe('approvals with the reference worker', () => {
  it('the run waits at the gate held by nobody; the starter may not approve; a second person approves and the run succeeds with its outputs', async () => {
    const { runId, approval } = await runAtGate('one');
    expect(approval).toMatchObject({ status: 'pending', message: 'Apply CHG-42?', approvals_count: 0 });
    // The worker made no step run for the gate, holds nothing and claimed its slot back.
    expect((await stepRuns(runId)).map((s) => s.step_id)).toEqual(['prepare']);
    expect(await runRow(runId)).toMatchObject({ worker_id: null, attempt: 1 });
    expect(worker.heldRuns()).not.toContain(runId);

    // ada may approve by her role (admin), but she started the run.
    const own = await decide(world.people.ada, approval.id, 'approve');
    expect(own.status).toBe(403);
    expect(own.body.code).toBe('separation_of_duties');
    expect((await runRow(runId)).status).toBe('awaiting_approval');

    const approved = await decide(world.people.abe, approval.id, 'approve', 'change window open');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', approvals_count: 1 });
    expect(approved.body.decisions).toMatchObject([{ user_id: 'sub-abe', decision: 'approve', comment: 'change window open' }]);

    await untilStatus(runId, 'succeeded');
    const run = await runRow(runId);
    expect(run.attempt).toBe(2);
    // The last step read the first one's outputs (from the earlier attempt) through its template.
    expect(run.outputs_json).toEqual({ applied: 'CHG-42', attempt: 2 });
    // The completed step was not run again; the gated step and the rest ran in the resumed attempt.
    expect((await stepRuns(runId)).map((s) => [s.step_id, s.status, s.attempt])).toEqual([
      ['prepare', 'succeeded', 1],
      ['gate', 'succeeded', 2],
      ['apply', 'succeeded', 2],
    ]);
    const decided = await world.knex('audit_logs').where({ event_type: 'approval.decided', resource_id: approval.id });
    expect(decided).toHaveLength(1);
  });

  it('required_approvals 2: the first approval leaves it pending, the same person again is 409 already_decided, a second person approves', async () => {
    const { runId, approval } = await runAtGate('two');
    const first = await decide(world.people.abe, approval.id, 'approve');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'pending', approvals_count: 1 });
    const again = await decide(world.people.abe, approval.id, 'approve');
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('already_decided');
    expect((await runRow(runId)).status).toBe('awaiting_approval');
    expect((await stepRuns(runId)).map((s) => s.step_id)).toEqual(['prepare']);

    const second = await decide(world.people.amy, approval.id, 'approve');
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ status: 'approved', approvals_count: 2 });
    await untilStatus(runId, 'succeeded');
    expect((await runRow(runId)).outputs_json).toEqual({ applied: 'CHG-42', attempt: 2 });
    // A decision after the approval is refused: nothing is pending any more.
    const late = await decide(world.people.ali, approval.id, 'reject');
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('approval_not_pending');
  });

  it('a rejection fails the run at once with approval_rejected; the gated step never runs', async () => {
    const { runId, approval } = await runAtGate('one');
    const rejected = await decide(world.people.abe, approval.id, 'reject', 'not in this window');
    expect(rejected.status).toBe(200);
    expect(rejected.body.status).toBe('rejected');
    await untilStatus(runId, 'failed');
    expect((await runRow(runId)).error_json).toMatchObject({ code: 'approval_rejected', step_id: 'gate', approval_id: approval.id });
    expect((await stepRuns(runId)).map((s) => s.step_id)).toEqual(['prepare']);
  });

  it('a timeout acts as the gate says: approve resumes the run to success, reject fails it with approval_expired', async () => {
    const toApprove = await runAtGate('expireApprove');
    const toReject = await runAtGate('expireReject');
    // Nothing is due yet: a tick of the maintenance pass leaves both pending.
    expect(await expiryOfTick()).toMatchObject({ outcome: 'ok', summary: { expired: 0 } });
    // Their hour passes: the next tick decides each as its gate says.
    await world
      .knex('approvals')
      .whereIn('id', [toApprove.approval.id, toReject.approval.id])
      .update({ expires_at: new Date(Date.now() - 1000) });
    expect(await expiryOfTick()).toMatchObject({ outcome: 'ok', summary: { approved: 1, rejected: 1 } });

    await untilStatus(toApprove.runId, 'succeeded');
    expect((await runRow(toApprove.runId)).outputs_json).toEqual({ applied: 'CHG-42', attempt: 2 });
    await untilStatus(toReject.runId, 'failed');
    expect((await runRow(toReject.runId)).error_json).toMatchObject({ code: 'approval_expired' });
    expect((await stepRuns(toReject.runId)).map((s) => s.step_id)).toEqual(['prepare']);

    for (const [{ approval }, outcome] of [
      [toApprove, 'approved'],
      [toReject, 'rejected'],
    ] as const) {
      const read = await asPerson(world, world.people.abe, 'GET', `/approvals/${approval.id}`);
      expect(await read.json()).toMatchObject({ status: 'expired', timeout_outcome: outcome });
    }
  });
});
