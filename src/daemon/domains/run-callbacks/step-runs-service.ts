import type { z } from 'zod';
import type { stepOutputs, stepRun } from '../../../shared/api/run-callbacks.js';
import { type Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { appendDaemonEvent } from '../runs/run-event-log.js';
import { type Holder, runNotFound, runNotHeld } from './fence.js';
import type { HeldRuns } from './held-runs.js';
import { iso } from '../runs/run-view.js';
import type { RunCallbacksRepo } from './run-callbacks-repo.js';
import type { StepRunMove, StepRunRow, StepRunStatus, StepRunsRepo } from './step-runs-repo.js';
import type { CallbacksTx } from './run-callbacks-repo.js';

/** Told, in the move's transaction, that a step of this run's attempt finished (run tokens die with their step). */
export type StepEndHook = (trx: CallbacksTx, runId: string, attempt: number, stepId: string) => Promise<void>;

const FINISHED: readonly StepRunStatus[] = ['succeeded', 'failed', 'skipped', 'cancelled'];

type StepRun = z.infer<typeof stepRun>;

/**
 * The step-run state machine: a step run is created pending, running or skipped; then
 *
 * | From | To |
 * |---|---|
 * | pending | running, skipped, cancelled |
 * | running | succeeded, failed, cancelled |
 *
 * A finished step run (succeeded, failed, skipped, cancelled) moves no more: 409 `invalid_step_run_state`.
 */
const MOVES: Readonly<Partial<Record<StepRunStatus, readonly StepRunStatus[]>>> = {
  pending: ['running', 'skipped', 'cancelled'],
  running: ['succeeded', 'failed', 'cancelled'],
};

function stepRunNotFound(): Problem {
  return problems.resourceNotFound('Step run');
}

function stepRunView(row: StepRunRow): StepRun {
  return {
    id: row.id,
    run_id: row.run_id,
    attempt: row.attempt,
    step_id: row.step_id,
    handler: row.handler,
    status: row.status,
    summary: row.summary,
    outputs: row.outputs_json,
    error: row.error_json,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
  };
}

/** Step runs of a run's current attempt: created and moved by the run's holder, each change a `step.status` event. */
export class StepRunsService {
  constructor(
    private readonly repo: StepRunsRepo,
    private readonly runs: RunCallbacksRepo,
    private readonly held: HeldRuns,
    private readonly stepEnded: readonly StepEndHook[] = [],
  ) {}

  /** Creates the step run of the holder's attempt (the run must be running); a retried create answers the row it made. */
  create(
    runId: string,
    holder: Holder,
    input: { step_id: string; handler: string; status: StepRunStatus },
  ): Promise<{ created: boolean; stepRun: StepRun }> {
    return this.held.hold(runId, holder, ['running'], 'given a step run', async (trx, run) => {
      const created = await this.repo.insert(trx, { run_id: runId, attempt: run.attempt, ...input });
      if (!created) return { created: false, stepRun: stepRunView((await this.repo.find(trx, runId, run.attempt, input.step_id))!) };
      await appendDaemonEvent(trx, runId, {
        type: 'step.status',
        stepId: created.step_id,
        data: { step_run_id: created.id, step_id: created.step_id, handler: created.handler, from: null, to: created.status },
      });
      return { created: true, stepRun: stepRunView(created) };
    });
  }

  /**
   * Moves a step run of the holder's attempt. Fenced on its run, in any status (a run a user cancelled
   * still lets its worker end its steps), except that a step starts running only in a running run.
   */
  async move(stepRunId: string, holder: Holder, move: StepRunMove): Promise<StepRun> {
    const runId = isUuid(stepRunId) ? await this.repo.runOf(stepRunId) : undefined;
    if (!runId) throw stepRunNotFound();
    const allowed = move.status === 'running' ? (['running'] as const) : undefined;
    return this.held.hold(runId, holder, allowed, 'given a running step', async (trx, run) => {
      const before = await this.repo.lock(trx, stepRunId);
      if (!before) throw stepRunNotFound();
      if (before.attempt !== run.attempt) throw runNotHeld(holder);
      if (!MOVES[before.status]?.includes(move.status)) {
        throw problem('invalid_step_run_state', `A ${before.status} step run cannot become ${move.status}.`, {
          current_status: before.status,
        });
      }
      const after = await this.repo.move(trx, stepRunId, move);
      if (FINISHED.includes(after.status)) for (const ended of this.stepEnded) await ended(trx, runId, after.attempt, after.step_id);
      await appendDaemonEvent(trx, runId, {
        type: 'step.status',
        stepId: after.step_id,
        data: { step_run_id: after.id, step_id: after.step_id, handler: after.handler, from: before.status, to: after.status },
      });
      return stepRunView(after);
    });
  }

  /** Outputs of the succeeded step runs of the run's current attempt, by step id. */
  async outputs(runId: string): Promise<z.infer<typeof stepOutputs>> {
    const run = isUuid(runId) ? await this.runs.get(runId) : undefined;
    if (!run) throw runNotFound();
    return { steps: await this.repo.succeededOutputs(runId, run.attempt) };
  }
}
