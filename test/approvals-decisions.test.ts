import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalsModule } from '../src/daemon/domains/approvals/module.js';
import { callback, eventsOf, json, problemOf } from './helpers/callbacks-fixtures.js';
import { type ApprovalsWorld, asPerson, decide, startApprovalsWorld, waitingRun } from './helpers/approvals-fixtures.js';
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
const people = () => world.people;

interface ApprovalAnswer {
  id: string;
  status: string;
  approvals_count: number;
  decisions: { user_id: string; user_name: string | null; decision: string; comment: string | null }[];
  [key: string]: unknown;
}

describe('deciding', () => {
  it('approves with one approver: the decision row, the audit entry, the events, and the run queued again', async () => {
    const { runId, approvalId } = await waitingRun(world);
    const answer = await json<ApprovalAnswer>(await decide(world, people().abe, approvalId, 'approve', 'looks right'));
    expect(answer).toMatchObject({ id: approvalId, status: 'approved', approvals_count: 1 });
    expect(answer.decisions).toEqual([
      { user_id: 'sub-abe', user_name: 'abe', decision: 'approve', comment: 'looks right', decided_at: expect.any(String) },
    ]);
    expect(answer.resolved_at).toEqual(expect.any(String));
    expect(await runRow(runId)).toMatchObject({ status: 'queued' });
    const audit = await knex()('audit_logs').where({ event_type: 'approval.decided', resource_id: approvalId }).select();
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_sub: 'sub-abe', action: 'approval:decide' });
    expect(audit[0].details_json).toMatchObject({ decision: 'approve', comment: 'looks right', run_id: runId });
    const types = (await eventsOf(knex(), runId)).map((e) => e.type);
    expect(types.slice(-2)).toEqual(['approval.decided', 'run.status']);
  });

  it('takes the run-scoped route too, and 404s it for another run', async () => {
    const { runId, approvalId } = await waitingRun(world);
    const other = await waitingRun(world);
    const wrong = await asPerson(world, people().abe, 'POST', `/runs/${other.runId}/approvals/${approvalId}/decision`, {
      body: { decision: 'approve' },
    });
    expect(await problemOf(wrong)).toMatchObject({ status: 404, code: 'resource_not_found' });
    const right = await asPerson(world, people().abe, 'POST', `/runs/${runId}/approvals/${approvalId}/decision`, {
      body: { decision: 'approve' },
    });
    expect((await json<ApprovalAnswer>(right)).status).toBe('approved');
  });

  it('takes the run and the approval named in capitals, and audits the decision under the id as the database writes it', async () => {
    const { runId, approvalId } = await waitingRun(world);
    // The approval's run was compared with the path's run id as text: its capitals answered 404.
    const answer = await asPerson(
      world,
      people().abe,
      'POST',
      `/runs/${runId.toUpperCase()}/approvals/${approvalId.toUpperCase()}/decision`,
      {
        body: { decision: 'approve' },
      },
    );
    expect(answer.status).toBe(200);
    const audit = await knex()('audit_logs').where({ event_type: 'approval.decided', resource_id: approvalId }).select();
    expect(audit).toHaveLength(1);
  });

  it('needs two distinct approvers when the gate requires two; the same one twice is 409 already_decided', async () => {
    const { runId, approvalId } = await waitingRun(world, 'two');
    expect((await json<ApprovalAnswer>(await decide(world, people().abe, approvalId, 'approve'))).status).toBe('pending');
    expect((await runRow(runId)).status).toBe('awaiting_approval');
    expect(await problemOf(await decide(world, people().abe, approvalId, 'approve'))).toMatchObject({
      status: 409,
      code: 'already_decided',
    });
    expect(await knex()('approval_decisions').where({ approval_id: approvalId })).toHaveLength(1);
    const done = await json<ApprovalAnswer>(await decide(world, people().amy, approvalId, 'approve'));
    expect(done).toMatchObject({ status: 'approved', approvals_count: 2 });
    expect((await runRow(runId)).status).toBe('queued');
  });

  it('fails the run on one rejection, at once: approval_rejected, run.failed audited', async () => {
    const { runId, approvalId } = await waitingRun(world, 'two');
    await json(await decide(world, people().abe, approvalId, 'approve'));
    expect((await json<ApprovalAnswer>(await decide(world, people().amy, approvalId, 'reject', 'not today'))).status).toBe('rejected');
    const run = await runRow(runId);
    expect(run).toMatchObject({ status: 'failed', error_json: { code: 'approval_rejected', step_id: 'gate', approval_id: approvalId } });
    expect(run.finished_at).not.toBeNull();
    expect(await knex()('audit_logs').where({ event_type: 'run.failed', resource_id: runId })).toHaveLength(1);
    const status = (await eventsOf(knex(), runId)).filter((e) => e.type === 'run.status').at(-1);
    expect(status?.data).toMatchObject({ from: 'awaiting_approval', to: 'failed', reason: 'approval_rejected' });
  });

  it('keeps the starter from deciding (403 separation_of_duties) unless the gate allows it', async () => {
    const { approvalId } = await waitingRun(world);
    expect(await problemOf(await decide(world, people().ada, approvalId, 'approve'))).toMatchObject({
      status: 403,
      code: 'separation_of_duties',
    });
    expect(await problemOf(await decide(world, people().ada, approvalId, 'reject'))).toMatchObject({
      status: 403,
      code: 'separation_of_duties',
    });
    expect((await approvalRow(approvalId)).status).toBe('pending');
    const allowed = await waitingRun(world, 'starter');
    expect((await json<ApprovalAnswer>(await decide(world, people().ada, allowed.approvalId, 'approve'))).status).toBe('approved');
  });

  it("asks for the gate's organization role (403 approver_role_required), of platform admins too", async () => {
    const { approvalId } = await waitingRun(world, 'admins');
    expect(await problemOf(await decide(world, people().abe, approvalId, 'approve'))).toMatchObject({
      status: 403,
      code: 'approver_role_required',
    });
    expect(await problemOf(await decide(world, people().root, approvalId, 'approve'))).toMatchObject({
      status: 403,
      code: 'approver_role_required',
    });
    expect(await knex()('approval_decisions').where({ approval_id: approvalId })).toHaveLength(0);
    expect((await json<ApprovalAnswer>(await decide(world, people().ali, approvalId, 'approve'))).status).toBe('approved');
  });

  it('checks in order: not pending before separation of duties', async () => {
    const { approvalId } = await waitingRun(world);
    await json(await decide(world, people().abe, approvalId, 'reject'));
    for (const who of [people().ada, people().amy]) {
      expect(await problemOf(await decide(world, who, approvalId, 'approve'))).toMatchObject({ status: 409, code: 'approval_not_pending' });
    }
  });

  it('finds an approval past its deadline expired (409 approval_not_pending) and applies its timeout, before the tick does', async () => {
    const { runId, approvalId } = await waitingRun(world, 'timeoutReject');
    await knex()('approvals')
      .where({ id: approvalId })
      .update({ expires_at: new Date(Date.now() - 60_000) });
    const inbox = await json<{ items: ApprovalAnswer[] }>(await asPerson(world, people().abe, 'GET', '/approvals/pending?limit=500'));
    expect(inbox.items.map((a) => a.id)).not.toContain(approvalId);
    expect(await problemOf(await decide(world, people().abe, approvalId, 'approve', 'too late'))).toMatchObject({
      status: 409,
      code: 'approval_not_pending',
    });
    expect(await knex()('approval_decisions').where({ approval_id: approvalId })).toHaveLength(0);
    expect(await approvalRow(approvalId)).toMatchObject({ status: 'expired', timeout_outcome: 'rejected' });
    expect(await runRow(runId)).toMatchObject({ status: 'failed', error_json: { code: 'approval_expired', step_id: 'gate' } });
    expect(await knex()('audit_logs').where({ event_type: 'approval.expired', resource_id: approvalId })).toHaveLength(1);
  });

  it("answers 404 for unknown ids and another organization's approval, 403 to a viewer, 422 for bad bodies", async () => {
    const { approvalId } = await waitingRun(world);
    for (const id of [UNKNOWN_ID, 'nope']) {
      expect(await problemOf(await decide(world, people().abe, id, 'approve'))).toMatchObject({ status: 404, code: 'resource_not_found' });
    }
    const foreign = await asPerson(world, people().oscar, 'POST', `/approvals/${approvalId}/decision`, {
      body: { decision: 'approve' },
      org: 'other',
    });
    expect(await problemOf(foreign)).toMatchObject({ status: 404, code: 'resource_not_found' });
    expect(await problemOf(await decide(world, people().vic, approvalId, 'approve'))).toMatchObject({ status: 403, code: 'forbidden' });
    for (const body of [{}, { decision: 'maybe' }, { decision: 'approve', comment: 'x'.repeat(2001) }, { decision: 'approve', extra: 1 }]) {
      const answer = await asPerson(world, people().abe, 'POST', `/approvals/${approvalId}/decision`, { body });
      expect(await problemOf(answer)).toMatchObject({ status: 422, code: 'validation_failed' });
    }
    expect(await knex()('approval_decisions').where({ approval_id: approvalId })).toHaveLength(0);
    expect((await approvalRow(approvalId)).status).toBe('pending');
  });

  it('answers 404 for an approval of a soft-deleted run, on both routes, as the reads do', async () => {
    const { runId, approvalId } = await waitingRun(world, 'two');
    await json(await decide(world, people().abe, approvalId, 'reject'));
    expect((await asPerson(world, people().ada, 'DELETE', `/runs/${runId}`)).status).toBe(204);
    expect(await problemOf(await decide(world, people().amy, approvalId, 'approve'))).toMatchObject({
      status: 404,
      code: 'resource_not_found',
    });
    const runRoute = await asPerson(world, people().amy, 'POST', `/runs/${runId}/approvals/${approvalId}/decision`, {
      body: { decision: 'approve' },
    });
    expect(await problemOf(runRoute)).toMatchObject({ status: 404, code: 'resource_not_found' });
    expect(await knex()('approval_decisions').where({ approval_id: approvalId })).toHaveLength(1);
  });

  it('refuses a comment holding NUL (422 at comment on both routes), storing nothing', async () => {
    const { runId, approvalId } = await waitingRun(world);
    for (const path of [`/approvals/${approvalId}/decision`, `/runs/${runId}/approvals/${approvalId}/decision`]) {
      const answer = await asPerson(world, people().abe, 'POST', path, { body: { decision: 'approve', comment: 'ok\u0000' } });
      const refused = await problemOf(answer);
      expect(refused).toMatchObject({ status: 422, code: 'validation_failed' });
      expect(refused.errors?.map((e) => e.path)).toEqual(['comment']);
    }
    expect(await knex()('approval_decisions').where({ approval_id: approvalId })).toHaveLength(0);
    expect((await approvalRow(approvalId)).status).toBe('pending');
  });

  it('resolves once when the last two approvals race', async () => {
    const { runId, approvalId } = await waitingRun(world, 'two');
    await json(await decide(world, people().ali, approvalId, 'approve'));
    const answers = await Promise.all([
      decide(world, people().abe, approvalId, 'approve'),
      decide(world, people().amy, approvalId, 'approve'),
    ]);
    const statuses = answers.map((a) => a.status).sort();
    // Both are recorded (the approval needed two and had one), or the later finds it approved.
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const requeued = (await eventsOf(knex(), runId)).filter((e) => e.type === 'run.status' && (e.data as { to: string }).to === 'queued');
    expect(requeued).toHaveLength(1);
    expect((await approvalRow(approvalId)).status).toBe('approved');
  });
});

describe('reading', () => {
  it("lists the organization's approvals with filters, reads one, and a run's; 404 from another organization", async () => {
    const { runId, approvalId } = await waitingRun(world);
    const list = await json<{ items: ApprovalAnswer[]; total: number }>(
      await asPerson(world, people().vic, 'GET', `/approvals?run_id=${runId}`),
    );
    expect(list.items.map((a) => a.id)).toEqual([approvalId]);
    expect(list.total).toBe(1);
    const pending = await json<{ items: ApprovalAnswer[] }>(
      await asPerson(world, people().vic, 'GET', '/approvals?status=pending&limit=500'),
    );
    expect(pending.items.every((a) => a.status === 'pending')).toBe(true);
    expect(pending.items.map((a) => a.id)).toContain(approvalId);
    const byFlow = await json<{ items: ApprovalAnswer[] }>(
      await asPerson(world, people().vic, 'GET', `/approvals?flow_id=${world.flows.starter}&limit=500`),
    );
    expect(byFlow.items.every((a) => a.flow_id === world.flows.starter)).toBe(true);
    expect((await json<ApprovalAnswer>(await asPerson(world, people().vic, 'GET', `/approvals/${approvalId}`))).id).toBe(approvalId);
    const ofRun = await json<{ items: ApprovalAnswer[] }>(await asPerson(world, people().vic, 'GET', `/runs/${runId}/approvals`));
    expect(ofRun.items.map((a) => a.id)).toEqual([approvalId]);
    const elsewhere = [`/approvals/${approvalId}`, `/runs/${runId}/approvals`];
    for (const path of elsewhere) {
      expect(await problemOf(await asPerson(world, people().oscar, 'GET', path, { org: 'other' }))).toMatchObject({
        status: 404,
        code: 'resource_not_found',
      });
    }
    const otherList = await json<{ items: ApprovalAnswer[] }>(await asPerson(world, people().oscar, 'GET', '/approvals', { org: 'other' }));
    expect(otherList.items).toEqual([]);
    for (const path of [`/approvals/${UNKNOWN_ID}`, `/runs/${UNKNOWN_ID}/approvals`, '/approvals/nope']) {
      expect(await problemOf(await asPerson(world, people().vic, 'GET', path))).toMatchObject({ status: 404, code: 'resource_not_found' });
    }
    for (const query of ['status=open', 'run_id=nope', 'limit=0', 'limit=501', 'extra=1']) {
      expect(await problemOf(await asPerson(world, people().vic, 'GET', `/approvals?${query}`))).toMatchObject({
        status: 422,
        code: 'validation_failed',
      });
    }
  });

  it('shows the inbox only what the caller may decide now', async () => {
    const plain = await waitingRun(world);
    const admins = await waitingRun(world, 'admins');
    const two = await waitingRun(world, 'two');
    await json(await decide(world, people().abe, two.approvalId, 'approve'));
    const inbox = async (who: string) =>
      (await json<{ items: ApprovalAnswer[] }>(await asPerson(world, who, 'GET', '/approvals/pending?limit=500'))).items.map((a) => a.id);
    const mine = [plain.approvalId, admins.approvalId, two.approvalId];
    // abe: not the admins' gate, not the one he decided.
    expect((await inbox(people().abe)).filter((id) => mine.includes(id))).toEqual([plain.approvalId]);
    // amy: all but the admins' gate.
    expect((await inbox(people().amy)).filter((id) => mine.includes(id)).sort()).toEqual([plain.approvalId, two.approvalId].sort());
    // ali (admin): everything.
    expect((await inbox(people().ali)).filter((id) => mine.includes(id)).sort()).toEqual([...mine].sort());
    // ada started them all.
    expect((await inbox(people().ada)).filter((id) => mine.includes(id))).toEqual([]);
    // vic cannot decide at all; oscar sees another organization.
    expect(await inbox(people().vic)).toEqual([]);
    expect(await json(await asPerson(world, people().oscar, 'GET', '/approvals/pending', { org: 'other' }))).toMatchObject({
      items: [],
      total: 0,
    });
    // Nothing decided is in it.
    await json(await decide(world, people().amy, plain.approvalId, 'approve'));
    expect(await inbox(people().ali)).not.toContain(plain.approvalId);
  });

  it('answers the node defaults from the setting', async () => {
    expect(await json(await asPerson(world, people().vic, 'GET', '/approvals/node-defaults'))).toEqual({
      required_approvals: 1,
      approver_role: null,
      allow_starter: false,
      timeout_seconds: 86400,
      timeout_action: 'reject',
      limits: { max_required_approvals: 10, max_timeout_seconds: 30 * 24 * 3600 },
    });
  });
});

describe('expireDue', () => {
  const expireAt = (now: Date) => approvalsModule(world.daemon.services).expireDue(now);

  it('leaves what is not due, then approves or rejects as each gate says', async () => {
    const approving = await waitingRun(world, 'timeoutApprove');
    const rejecting = await waitingRun(world, 'timeoutReject');
    const never = await waitingRun(world, 'never');
    const expiresAt = new Date((await approvalRow(approving.approvalId)).expires_at);
    expect(await expireAt(new Date(expiresAt.getTime() - 60_000))).toMatchObject({ expired: 0 });
    expect((await approvalRow(approving.approvalId)).status).toBe('pending');

    const later = new Date(Date.now() + 3_600_000);
    const summary = await expireAt(later);
    expect(summary.approved).toBeGreaterThanOrEqual(1);
    expect(summary.rejected).toBeGreaterThanOrEqual(1);
    expect(await approvalRow(approving.approvalId)).toMatchObject({ status: 'expired', timeout_outcome: 'approved' });
    expect(new Date((await approvalRow(approving.approvalId)).resolved_at).getTime()).toBe(later.getTime());
    expect((await runRow(approving.runId)).status).toBe('queued');
    expect(await approvalRow(rejecting.approvalId)).toMatchObject({ status: 'expired', timeout_outcome: 'rejected' });
    expect(await runRow(rejecting.runId)).toMatchObject({ status: 'failed', error_json: { code: 'approval_expired', step_id: 'gate' } });
    expect((await approvalRow(never.approvalId)).status).toBe('pending');
    expect(await knex()('audit_logs').where({ event_type: 'approval.expired', resource_id: rejecting.approvalId })).toHaveLength(1);

    // Expired is not pending: a decision is 409.
    expect(await problemOf(await decide(world, people().abe, approving.approvalId, 'approve'))).toMatchObject({
      status: 409,
      code: 'approval_not_pending',
    });
    // And a second pass finds nothing more of these.
    await expireAt(later);
    expect((await runRow(approving.runId)).status).toBe('queued');
  });
});

describe('the maintenance tick', () => {
  it('expires a due approval as its gate says (the approvals.expire_due job)', async () => {
    const rejecting = await waitingRun(world, 'timeoutReject');
    await knex()('approvals')
      .where({ id: rejecting.approvalId })
      .update({ expires_at: new Date(Date.now() - 60_000) });
    const tick = await json<{ jobs: { name: string; outcome: string; summary: Record<string, number> }[] }>(
      await callback(world, 'POST', '/internal/maintenance/tick'),
    );
    expect(tick.jobs.find((job) => job.name === 'approvals.expire_due')).toMatchObject({ outcome: 'ok', summary: { rejected: 1 } });
    expect(await approvalRow(rejecting.approvalId)).toMatchObject({ status: 'expired', timeout_outcome: 'rejected' });
    expect(await runRow(rejecting.runId)).toMatchObject({ status: 'failed', error_json: { code: 'approval_expired' } });
  });
});
