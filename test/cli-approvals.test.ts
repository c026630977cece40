import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, runSvc, type SvcRun } from './helpers/cli.js';
import { startApprovalsWorld, waitingRun, type ApprovalsWorld, type People } from './helpers/approvals-fixtures.js';

/**
 * `svc approvals list|get|approve|reject` as built (a subprocess, no terminal) against a real daemon,
 * with runs brought to their gate through the worker's routes (approvals-fixtures.ts). In acme, ada
 * (admin) starts every run, abe and amy approve, ali is a second admin, vic a viewer.
 */
let world: ApprovalsWorld;
let configHome: string;

beforeAll(async () => {
  world = await startApprovalsWorld();
  configHome = await mkdtemp(join(tmpdir(), 'svc-cli-approvals-'));
});
afterAll(async () => {
  await world?.close();
  if (configHome) await rm(configHome, { recursive: true, force: true });
});

/** `svc --server … --org acme <args>` as `who`, whose bearer travels in SVC_TOKEN. */
function svc(who: keyof People, args: string[]): Promise<SvcRun> {
  return runSvc(['--server', world.daemon.url, '--org', 'acme', ...args], {
    configHome,
    env: { SVC_TOKEN: world.people[who].replace(/^Bearer /, '') },
  });
}

const json = async <T = Record<string, unknown>>(run: Promise<SvcRun>): Promise<T> => JSON.parse((await ok(run)).stdout) as T;

/** A refusal: the exit code, nothing on stdout, the problem code and a request id on stderr. */
function expectRefused(result: SvcRun, exit: number, code: string): void {
  expect(result.code, result.stderr).toBe(exit);
  expect(result.stdout).toBe('');
  expect(result.stderr).toContain(`code: ${code}`);
  expect(result.stderr).toMatch(/request id: \S+/);
}

const approvalRow = (id: string) => world.knex('approvals').where({ id }).first();
const decisionCount = (id: string) =>
  world
    .knex('approval_decisions')
    .where({ approval_id: id })
    .count<{ count: string }[]>({ count: '*' })
    .then(([r]) => Number(r!.count));

describe('svc approvals list and get', () => {
  it("lists the organization's approvals (filters by run and status) and the caller's inbox; --json the daemon's page", async () => {
    const { runId, approvalId } = await waitingRun(world);

    const table = await ok(svc('abe', ['approvals', 'list', '--run', runId]));
    const [header, row, ...rest] = table.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID\s+RUN\s+FLOW\s+STEP\s+STATUS\s+APPROVALS\s+EXPIRES\s+MESSAGE$/);
    expect(row).toMatch(new RegExp(`^${approvalId}\\s+${runId}\\s+plain\\s+gate\\s+pending\\s+0/1\\s+\\S+\\s+Go ahead\\?$`));
    expect(rest).toEqual([]);

    const page = await json<{ items: { id: string }[]; total: number }>(
      svc('abe', ['approvals', 'list', '--run', runId, '--status', 'pending', '--json']),
    );
    expect(page.items.map((a) => a.id)).toEqual([approvalId]);
    expect(page.total).toBe(1);
    const none = await json<{ items: unknown[] }>(svc('abe', ['approvals', 'list', '--run', runId, '--status', 'approved', '--json']));
    expect(none.items).toEqual([]);

    // The inbox: abe may decide it; ada started the run, so it is not hers to decide.
    const inbox = await json<{ items: { id: string }[] }>(svc('abe', ['approvals', 'list', '--pending', '--json']));
    expect(inbox.items.map((a) => a.id)).toContain(approvalId);
    // ada started every run of this world: her inbox is empty, said on stderr with nothing on stdout.
    const adas = await json<{ items: unknown[] }>(svc('ada', ['approvals', 'list', '--pending', '--json']));
    expect(adas.items).toEqual([]);
    const empty = await ok(svc('ada', ['approvals', 'list', '--pending']));
    expect(empty.stdout).toBe('');
    expect(empty.stderr).toContain('Nothing for you to decide.');
  });

  it('get prints the record, and --json the approval; an unknown id is exit 3', async () => {
    const { runId, approvalId } = await waitingRun(world);
    const record = await ok(svc('vic', ['approvals', 'get', approvalId]));
    expect(record.stdout).toMatch(new RegExp(`^id:\\s+${approvalId}$`, 'm'));
    expect(record.stdout).toMatch(/^status:\s+pending$/m);
    expect(record.stdout).toMatch(new RegExp(`^run:\\s+\\S+ \\(${runId}\\)$`, 'm'));
    expect(record.stdout).toMatch(/^approvals:\s+0\/1 needed$/m);
    expect(record.stdout).toMatch(/^message:\s+Go ahead\?$/m);
    const approval = await json(svc('vic', ['approvals', 'get', approvalId, '--json']));
    expect(approval).toMatchObject({ id: approvalId, run_id: runId, status: 'pending', step_id: 'gate', decisions: [] });
    expectRefused(await svc('vic', ['approvals', 'get', '00000000-0000-4000-8000-000000000000']), 3, 'resource_not_found');
  });

  it('--pending takes no filter (exit 2, nothing asked of the daemon)', async () => {
    const result = await svc('abe', ['approvals', 'list', '--pending', '--status', 'pending']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('--pending');
  });

  it('runs get on a run awaiting approval says where to look, on stderr', async () => {
    const { runId } = await waitingRun(world);
    const result = await ok(svc('vic', ['runs', 'get', runId]));
    expect(result.stdout).toMatch(/^status:\s+awaiting_approval$/m);
    expect(result.stderr).toContain(`Run ${runId} is awaiting approval: svc approvals list --run ${runId}`);
  });
});

describe('svc approvals approve and reject', () => {
  it('approve: the starter is exit 5 separation_of_duties; an approver approves with a comment (stderr says so); again is exit 9', async () => {
    const { runId, approvalId } = await waitingRun(world);
    expectRefused(await svc('ada', ['approvals', 'approve', approvalId]), 5, 'separation_of_duties');
    expectRefused(await svc('vic', ['approvals', 'approve', approvalId]), 5, 'forbidden');
    expect(await decisionCount(approvalId)).toBe(0);

    const approved = await ok(svc('abe', ['approvals', 'approve', approvalId, '--comment', 'CAB-1234']));
    expect(approved.stdout).toBe('');
    expect(approved.stderr).toContain(`Approved ${approvalId} (step gate of run ${runId}): approved; the run goes on.`);
    expect(await approvalRow(approvalId)).toMatchObject({ status: 'approved' });
    const record = await ok(svc('abe', ['approvals', 'get', approvalId]));
    expect(record.stdout).toMatch(/^decision:\s+approve by abe at \S+: CAB-1234$/m);

    // Nothing left to decide: 409 approval_not_pending, exit 9, for approve and reject alike.
    expectRefused(await svc('amy', ['approvals', 'approve', approvalId]), 9, 'approval_not_pending');
    expectRefused(await svc('amy', ['approvals', 'reject', approvalId]), 9, 'approval_not_pending');
    expect(await decisionCount(approvalId)).toBe(1);
    expect((await world.knex('runs').where({ id: runId }).first()).status).toBe('queued');
  });

  it('two approvals needed: the first leaves it pending; the same person again is exit 9 already_decided; --json the approval', async () => {
    const { approvalId } = await waitingRun(world, 'two');
    const first = await json(svc('abe', ['approvals', 'approve', approvalId, '--json']));
    expect(first).toMatchObject({ id: approvalId, status: 'pending', approvals_count: 1, required_approvals: 2 });
    expectRefused(await svc('abe', ['approvals', 'approve', approvalId]), 9, 'already_decided');
    const second = await ok(svc('amy', ['approvals', 'approve', approvalId]));
    expect(second.stderr).toContain('approved; the run goes on.');
    expect(await decisionCount(approvalId)).toBe(2);
  });

  it('a gate naming a role: an approver without it is exit 5 approver_role_required; a holder of the role approves', async () => {
    const { approvalId } = await waitingRun(world, 'admins');
    expectRefused(await svc('abe', ['approvals', 'approve', approvalId]), 5, 'approver_role_required');
    const approved = await ok(svc('ali', ['approvals', 'approve', approvalId]));
    expect(approved.stderr).toContain('approved; the run goes on.');
  });

  it('reject fails the run; the sentence says so; --comment is kept', async () => {
    const { runId, approvalId } = await waitingRun(world);
    const rejected = await ok(svc('amy', ['approvals', 'reject', approvalId, '--comment', 'outside the window']));
    expect(rejected.stderr).toContain(`Rejected ${approvalId} (step gate of run ${runId}): rejected; the run fails.`);
    const run = await world.knex('runs').where({ id: runId }).first();
    expect(run).toMatchObject({ status: 'failed' });
    expect(run.error_json).toMatchObject({ code: 'approval_rejected' });
    const approval = await json<{ decisions: unknown[] }>(svc('amy', ['approvals', 'get', approvalId, '--json']));
    expect(approval.decisions).toMatchObject([{ user_id: 'sub-amy', decision: 'reject', comment: 'outside the window' }]);
  });

  it('the pending sentence of a partial approval', async () => {
    const { runId, approvalId } = await waitingRun(world, 'two');
    const partial = await ok(svc('amy', ['approvals', 'approve', approvalId]));
    expect(partial.stderr).toContain(`Approved ${approvalId} (step gate of run ${runId}): 1 of 2 approvals; still pending.`);
  });
});
