import type { z } from 'zod';
import type { childRunBody } from '../../../shared/api/run-callbacks.js';
import { problem } from '../../../shared/api/problem.js';
import type { AuditContext } from '../../audit/audit-context.js';
import type { RunAdmission } from '../runs/run-admission.js';
import { runView, type RunView } from '../runs/run-view.js';
import type { ChildOrigin, ChildRunsRepo } from './child-runs-repo.js';
import type { Holder } from './fence.js';
import type { HeldRuns } from './held-runs.js';

type ChildRunRequest = z.output<typeof childRunBody>;

/**
 * A child run for a parent's `flow.run` step, through the one admission (trigger source `flow`): in the
 * parent's organization, created by the parent's creator, fenced on the parent (its holder asks, and it
 * is running). One child per (parent run, parent step, parent attempt): a retried request answers it.
 */
export class ChildRunsService {
  constructor(
    private readonly repo: ChildRunsRepo,
    private readonly held: HeldRuns,
    private readonly admission: RunAdmission,
  ) {}

  start(request: ChildRunRequest, holder: Holder, context?: AuditContext): Promise<{ created: boolean; run: RunView }> {
    return this.held.hold(request.parent_run_id, holder, ['running'], 'given a child run', async (trx, parent) => {
      const origin: ChildOrigin = { parentRunId: parent.id, parentStepId: request.parent_step_id, parentAttempt: parent.attempt };
      // The parent's row lock orders retries of one request: the second finds what the first made.
      const existing = await this.repo.find(trx, origin);
      if (existing) return { created: false, run: runView(existing) };
      const flowId = request.flow_id ?? (await this.repo.flowIdByName(trx, parent.org_id, request.flow_name!));
      if (!flowId) throw problem('flow_not_found', 'No live flow of this name in the organization or the shared one.');
      const admitted = await this.admission.admit(trx, {
        orgId: parent.org_id,
        flowId,
        version: request.version ?? null,
        params: request.params ?? {},
        targets: request.targets ?? {},
        trigger: { source: 'flow', details: { parent_run_id: parent.id, parent_step_id: request.parent_step_id } },
        ...(request.name !== undefined ? { name: request.name } : {}),
        ...(context ? { audit: context } : {}),
        createdBy: parent.created_by,
      });
      await this.repo.link(trx, admitted.id, origin);
      return { created: true, run: admitted.run };
    });
  }
}
