import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitRun, callback, eventsOf, json, problemOf } from './helpers/callbacks-fixtures.js';
import {
  type ApprovalsWorld,
  asPerson,
  claimRun,
  decide,
  startApprovalsWorld,
  succeedStep,
  waitingRun,
} from './helpers/approvals-fixtures.js';
import { UNKNOWN_ID } from './helpers/runs-fixtures.js';

let world: ApprovalsWorld;
const knex = () => world.knex;

beforeAll(async () => {
  world = await startApprovalsWorld();
});
afterAll(async () => {
  await world?.close();
});

const runRow = (id: string) => knex()('runs').where({ id }).first();
const approvalRow = (id: string) => knex()('approvals').where({ id }).first();

/** A run of `flow` claimed by `w1`, its first step done: what asks for the gate next. */
async function claimedRun(flow = 'plain'): Promise<{ runId: string; attempt: number }> {
  const run = await admitRun(world, world.flows[flow]);
  const assignment = await claimRun(world, run.id);
  await succeedStep(world, run.id, 'first', { worker: 'w1', attempt: assignment.attempt });
  return { runId: run.id, attempt: assignment.attempt };
}

describe('POST /internal/runs/{run_id}/approvals', () => {
  it('opens the approval from the committed gate: the run awaits it, held by nobody, with events and an audit entry', async () => {
    const { runId, approvalId, approval } = await waitingRun(world, 'two');
    expect(approval).toMatchObject({
      run_id: runId,
      org_id: world.orgId,
      step_id: 'gate',
      status: 'pending',
      message: 'Go ahead?',
      details: {},
      required_approvals: 2,
      approvals_count: 0,
      approver_role: null,
      allow_starter: false,
      timeout_action: 'reject',
      timeout_outcome: null,
      run_started_by: 'sub-ada',
      resolved_at: null,
      decisions: [],
    });
    // The default timeout: SERVICE_APPROVAL_DEFAULT_TIMEOUT_SECONDS (a day).
    const hours = (Date.parse(approval.expires_at as string) - Date.parse(approval.requested_at as string)) / 3_600_000;
    expect(Math.round(hours)).toBe(24);
    const run = await runRow(runId);
    expect(run).toMatchObject({ status: 'awaiting_approval', worker_id: null, lease_expires_at: null });
    const stored = await approvalRow(approvalId);
    expect(stored).toMatchObject({ requested_by_worker: 'w1', requested_attempt: 1, timeout_seconds: 86400 });
    const events = await eventsOf(knex(), runId);
    const status = events.filter((e) => e.type === 'run.status').at(-1);
    expect(status?.data).toMatchObject({
      from: 'running',
      to: 'awaiting_approval',
      reason: 'approval_requested',
      approval_id: approvalId,
      step_id: 'gate',
    });
    expect(events.at(-1)).toMatchObject({ type: 'approval.requested', step_id: 'gate', data: { approval_id: approvalId } });
    const audit = await knex()('audit_logs').where({ event_type: 'approval.requested', resource_id: approvalId }).select();
    expect(audit).toHaveLength(1);
    // Public view of the run says so too.
    const viewed = await json(await asPerson(world, world.people.vic, 'GET', `/runs/${runId}`));
    expect(viewed.status).toBe('awaiting_approval');
  });

  it('answers a retry with the approval it opened (200), changing nothing', async () => {
    const { runId, approvalId } = await waitingRun(world);
    const before = await eventsOf(knex(), runId);
    const again = await json(await callback(world, 'POST', `/internal/runs/${runId}/approvals`, { body: { step_id: 'gate' } }));
    expect(again).toMatchObject({ id: approvalId, message: 'Go ahead?' });
    expect(await eventsOf(knex(), runId)).toHaveLength(before.length);
    expect(await knex()('approvals').where({ run_id: runId })).toHaveLength(1);
  });

  it('uses a gate without timeout as never expiring', async () => {
    const { approval } = await waitingRun(world, 'never');
    expect(approval.expires_at).toBeNull();
  });

  it('refuses a step that does not exist or has no gate (422 at step_id), storing nothing', async () => {
    const { runId } = await claimedRun();
    for (const step of ['last', 'nosuch']) {
      const problem = await problemOf(await callback(world, 'POST', `/internal/runs/${runId}/approvals`, { body: { step_id: step } }));
      expect(problem).toMatchObject({ status: 422, code: 'validation_failed', errors: [{ path: 'step_id' }] });
    }
    expect(await knex()('approvals').where({ run_id: runId })).toHaveLength(0);
    expect((await runRow(runId)).status).toBe('running');
  });

  it('refuses malformed bodies and fencing headers (422)', async () => {
    const { runId } = await claimedRun();
    const bodies = [
      {},
      { step_id: 'Gate!' },
      { step_id: 'gate', details: [] },
      { step_id: 'gate', extra: 1 },
      { step_id: 'gate', message: 'x'.repeat(4001) },
    ];
    for (const body of bodies) {
      expect(await problemOf(await callback(world, 'POST', `/internal/runs/${runId}/approvals`, { body }))).toMatchObject({
        status: 422,
        code: 'validation_failed',
      });
    }
    const noHeaders = await callback(world, 'POST', `/internal/runs/${runId}/approvals`, { body: { step_id: 'gate' }, worker: null });
    expect(await problemOf(noHeaders)).toMatchObject({ status: 422, code: 'validation_failed' });
    const nul = await callback(world, 'POST', `/internal/runs/${runId}/approvals`, { rawBody: '{"step_id":"gate","message":"a\\u0000b"}' });
    expect(await problemOf(nul)).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(await knex()('approvals').where({ run_id: runId })).toHaveLength(0);
  });

  it('answers 404 for an unknown run, 409 run_not_held for another worker or attempt, 409 invalid_run_state unless running', async () => {
    for (const id of [UNKNOWN_ID, 'not-a-uuid']) {
      expect(await problemOf(await callback(world, 'POST', `/internal/runs/${id}/approvals`, { body: { step_id: 'gate' } }))).toMatchObject(
        {
          status: 404,
          code: 'resource_not_found',
        },
      );
    }
    const { runId } = await claimedRun();
    for (const holder of [{ worker: 'w2' }, { attempt: 2 }]) {
      const answer = await callback(world, 'POST', `/internal/runs/${runId}/approvals`, { ...holder, body: { step_id: 'gate' } });
      expect(await problemOf(answer)).toMatchObject({ status: 409, code: 'run_not_held' });
    }
    expect((await asPerson(world, world.people.ada, 'POST', `/runs/${runId}/pause`)).status).toBe(200);
    const paused = await callback(world, 'POST', `/internal/runs/${runId}/approvals`, { body: { step_id: 'gate' } });
    expect(await problemOf(paused)).toMatchObject({ status: 409, code: 'invalid_run_state' });
    expect(await knex()('approvals').where({ run_id: runId })).toHaveLength(0);
  });

  it('lets the worker forget the run: its next heartbeat naming it hears it is lost, and nothing renews it', async () => {
    const { runId } = await waitingRun(world);
    const answer = await json<{ lost: string[] }>(
      await fetch(`${world.daemon.url}/internal/workers/heartbeat`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-internal-token': 'worker-secret-0123456789-abcdefghij' },
        body: JSON.stringify({ worker_id: 'w1', running: [{ run_id: runId, attempt: 1 }] }),
      }),
    );
    expect(answer.lost).toContain(runId);
    expect(await runRow(runId)).toMatchObject({ status: 'awaiting_approval', lease_expires_at: null });
  });
});

describe('PATCH /internal/approvals/{approval_id}', () => {
  it('changes the message and details while pending, for the worker and attempt that asked', async () => {
    const { approvalId } = await waitingRun(world);
    const changed = await json(
      await callback(world, 'PATCH', `/internal/approvals/${approvalId}`, { body: { details: { diff: '+1 line' } } }),
    );
    expect(changed).toMatchObject({ id: approvalId, message: 'Go ahead?', details: { diff: '+1 line' } });
    const again = await json(await callback(world, 'PATCH', `/internal/approvals/${approvalId}`, { body: { message: null } }));
    expect(again).toMatchObject({ message: null, details: { diff: '+1 line' } });
  });

  it('refuses another worker or attempt (409 run_not_held), unknown ids (404), bad bodies (422)', async () => {
    const { approvalId } = await waitingRun(world);
    for (const holder of [{ worker: 'w2' }, { attempt: 2 }]) {
      const answer = await callback(world, 'PATCH', `/internal/approvals/${approvalId}`, { ...holder, body: { message: 'x' } });
      expect(await problemOf(answer)).toMatchObject({ status: 409, code: 'run_not_held' });
    }
    for (const id of [UNKNOWN_ID, 'nope']) {
      expect(await problemOf(await callback(world, 'PATCH', `/internal/approvals/${id}`, { body: { message: 'x' } }))).toMatchObject({
        status: 404,
        code: 'resource_not_found',
      });
    }
    for (const body of [{ status: 'approved' }, { details: 'text' }]) {
      expect(await problemOf(await callback(world, 'PATCH', `/internal/approvals/${approvalId}`, { body }))).toMatchObject({
        status: 422,
        code: 'validation_failed',
      });
    }
    expect((await approvalRow(approvalId)).message).toBe('Go ahead?');
  });

  it('refuses a decided approval (409 approval_not_pending)', async () => {
    const { approvalId } = await waitingRun(world);
    expect((await decide(world, world.people.abe, approvalId, 'approve')).status).toBe(200);
    const answer = await callback(world, 'PATCH', `/internal/approvals/${approvalId}`, { body: { message: 'late' } });
    expect(await problemOf(answer)).toMatchObject({ status: 409, code: 'approval_not_pending' });
  });
});

describe('resuming through the heartbeat', () => {
  it('hands the approved run to the next claim with its completed steps and approved gates', async () => {
    const { runId, approvalId } = await waitingRun(world);
    expect((await decide(world, world.people.abe, approvalId, 'approve', 'fine')).status).toBe(200);
    expect(await runRow(runId)).toMatchObject({ status: 'queued', worker_id: null });
    const events = await eventsOf(knex(), runId);
    expect(events.filter((e) => e.type === 'run.status').at(-1)?.data).toMatchObject({
      from: 'awaiting_approval',
      to: 'queued',
      reason: 'approved',
      approval_id: approvalId,
      step_id: 'gate',
    });
    const assignment = await claimRun(world, runId, 'w2');
    expect(assignment).toMatchObject({
      run_id: runId,
      attempt: 2,
      completed_steps: { first: { outputs: { answer: 42 } } },
      approved_steps: ['gate'],
    });
    // The resumed attempt runs the gated step and the rest, and ends the run.
    const holder = { worker: 'w2', attempt: 2 };
    await succeedStep(world, runId, 'gate', holder);
    await succeedStep(world, runId, 'last', holder);
    await json(await callback(world, 'PATCH', `/internal/runs/${runId}`, { ...holder, body: { status: 'succeeded' } }));
    expect((await runRow(runId)).status).toBe('succeeded');
  });

  it('hands a first claim neither list', async () => {
    const run = await admitRun(world, world.flows.plain);
    const assignment = await claimRun(world, run.id);
    expect(assignment.completed_steps).toBeUndefined();
    expect(assignment.approved_steps).toBeUndefined();
  });
});

describe('cancel and pause of a run awaiting an approval', () => {
  it('cancels the run and its pending approval; a decision then answers 409 approval_not_pending', async () => {
    const { runId, approvalId } = await waitingRun(world);
    const cancelled = await json(await asPerson(world, world.people.ada, 'POST', `/runs/${runId}/cancel`));
    expect(cancelled.status).toBe('cancelled');
    const approval = await approvalRow(approvalId);
    expect(approval.status).toBe('cancelled');
    expect(approval.resolved_at).not.toBeNull();
    expect(await problemOf(await decide(world, world.people.abe, approvalId, 'approve'))).toMatchObject({
      status: 409,
      code: 'approval_not_pending',
    });
  });

  it('cancels the pending approval of a child run when its parent is cancelled', async () => {
    const parent = await waitingRun(world);
    const child = await waitingRun(world);
    await knex()('runs').where({ id: child.runId }).update({ parent_run_id: parent.runId, parent_step_id: 'gate', parent_attempt: 1 });
    expect((await asPerson(world, world.people.ada, 'POST', `/runs/${parent.runId}/cancel`)).status).toBe(200);
    expect((await runRow(child.runId)).status).toBe('cancelled');
    expect((await approvalRow(child.approvalId)).status).toBe('cancelled');
  });

  it("lets the parent's holder cancel a child run awaiting an approval, and the approval with it", async () => {
    const parent = await claimedRun();
    const child = await waitingRun(world, 'plain', 'w3');
    await knex()('runs')
      .where({ id: child.runId })
      .update({ parent_run_id: parent.runId, parent_step_id: 'first', parent_attempt: parent.attempt });
    const answer = await callback(world, 'POST', `/internal/runs/${child.runId}/cancel`, {
      attempt: parent.attempt,
      body: { reason: 'stop' },
    });
    expect((await json(answer)).status).toBe('cancelled');
    expect((await approvalRow(child.approvalId)).status).toBe('cancelled');
  });

  it('refuses to pause it (409 invalid_run_state)', async () => {
    const { runId, approvalId } = await waitingRun(world);
    expect(await problemOf(await asPerson(world, world.people.ada, 'POST', `/runs/${runId}/pause`))).toMatchObject({
      status: 409,
      code: 'invalid_run_state',
    });
    expect((await runRow(runId)).status).toBe('awaiting_approval');
    expect((await approvalRow(approvalId)).status).toBe('pending');
  });

  it('queues an approved run again when it is paused and resumed, so the next heartbeat claims it', async () => {
    const { runId, approvalId } = await waitingRun(world);
    expect((await decide(world, world.people.abe, approvalId, 'approve')).status).toBe(200);
    expect((await asPerson(world, world.people.ada, 'POST', `/runs/${runId}/pause`)).status).toBe(200);
    expect(await json(await asPerson(world, world.people.ada, 'POST', `/runs/${runId}/resume`))).toMatchObject({ status: 'queued' });
    expect(await runRow(runId)).toMatchObject({ status: 'queued', worker_id: null });
    expect(await claimRun(world, runId, 'w2')).toMatchObject({ attempt: 2, approved_steps: ['gate'] });
  });

  it('takes the approvals away with a purged run', async () => {
    const { runId, approvalId } = await waitingRun(world);
    expect((await asPerson(world, world.people.ada, 'POST', `/runs/${runId}/cancel`)).status).toBe(200);
    expect((await asPerson(world, world.people.ada, 'DELETE', `/runs/${runId}/permanent`)).status).toBe(204);
    expect(await approvalRow(approvalId)).toBeUndefined();
  });
});
