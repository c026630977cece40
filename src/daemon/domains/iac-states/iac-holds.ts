import type { AuditContext } from '../../audit/audit-context.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { StepEndHook } from '../run-callbacks/step-runs-service.js';
import { recordIacEvent } from './iac-audit.js';
import { heldFrom, stateHeld, stateLocked } from './iac-lock.js';
import type { IacStatesRepo, IacTx } from './iac-states-repo.js';

const ACTION = 'internal:run_callbacks';

/** A running step of a run asking to hold one of its organization's states (`iac.plan`'s `hold_until_apply`). */
export interface HoldRequest {
  readonly orgId: string;
  readonly stateName: string;
  readonly runId: string;
  readonly stepId: string;
}

/** Takes a hold inside the caller's transaction (a run token's mint). */
export type HoldState = (trx: IacTx, request: HoldRequest, context: AuditContext | undefined) => Promise<void>;

/**
 * What a run's steps leave on its states. A lock a step's tool did not let go (it crashed, or was killed)
 * goes when the step ends, so the run's next step is not refused by its own run. A hold (`hold_until_apply`)
 * is taken when the plan step is given its token, and lasts until the run applies: a later step of it has
 * written the state and ended, or its `iac.apply` of that plan (`plan_step`) has ended, written or not;
 * or until the run ends (the trigger of 20261128200002). Meanwhile only the run may lock or write the state.
 */
export class IacHolds {
  constructor(
    private readonly repo: IacStatesRepo,
    private readonly audit: AuditWriter,
  ) {}

  /** 423 while another holder has the state locked or another run holds it; asked again by the run, the asking step becomes the hold's. */
  readonly hold: HoldState = async (trx, request, context) => {
    const state = await this.repo.lockOrCreate(trx, request.orgId, request.stateName, null);
    if (state.lock_id !== null && state.lock_run_id !== request.runId) throw stateLocked(state);
    if (heldFrom(state, request.runId)) throw stateHeld(state);
    await this.repo.setHold(trx, state.id, request.runId, request.stepId);
    await recordIacEvent(this.audit, context, trx, state, {
      eventType: 'iac_state.held',
      action: ACTION,
      details: { run_id: request.runId, step_id: request.stepId, reason: 'hold_until_apply' },
    });
  };

  readonly stepEnded: StepEndHook = async (trx, runId, _attempt, stepId) => {
    for (const state of await this.repo.lockedByStep(trx, runId, stepId)) {
      await this.repo.clearLock(trx, state.id);
      await recordIacEvent(this.audit, undefined, trx, state, {
        eventType: 'iac_state.lock_released',
        action: ACTION,
        details: { lock_id: state.lock_id, lock: state.lock_json, run_id: runId, step_id: stepId, reason: 'step_ended' },
      });
    }
    for (const state of await this.repo.releasedByStep(trx, runId, stepId)) {
      await this.repo.clearHold(trx, state.id);
      await recordIacEvent(this.audit, undefined, trx, state, {
        eventType: 'iac_state.hold_released',
        action: ACTION,
        details: { run_id: runId, step_id: state.hold_step_id, held_at: state.held_at, applied_by_step_id: stepId, reason: 'applied' },
      });
    }
  };
}
