import type { LockInfo } from '../../../shared/api/iac-states.js';
import { type Problem, problem } from '../../../shared/api/problem.js';
import type { IacStateRow } from './iac-states-repo.js';

const LOCK_FIELDS = ['ID', 'Operation', 'Info', 'Who', 'Version', 'Created', 'Path'] as const;

/**
 * The holder's lock info as Terraform reads it from a refusal's body (it prints `ID=<holder>`): the
 * seven fields of its LockInfo at the top level of the problem, and nothing else of what the locker sent,
 * so no member of the lock can stand in for one of the problem's own.
 */
export function holderInfo(state: IacStateRow): Record<string, string> {
  const info: Record<string, unknown> = state.lock_json ?? {};
  const out: Record<string, string> = {};
  for (const field of LOCK_FIELDS) if (typeof info[field] === 'string') out[field] = info[field];
  if (state.lock_id !== null) out.ID = state.lock_id;
  return out;
}

/** 423: the state is locked by another holder. */
export function stateLocked(state: IacStateRow): Problem {
  return problem('iac_state_locked', `State ${state.name} is locked (ID=${state.lock_id ?? ''}).`, holderInfo(state));
}

/** 409: a write or unlock names a lock that is not the holder's (or the state is not locked). */
export function lockMismatch(state: IacStateRow, named: string): Problem {
  const detail =
    state.lock_id === null
      ? `State ${state.name} is not locked (the request names lock ${named}).`
      : `State ${state.name} is locked by ${state.lock_id}, not ${named}.`;
  return problem('iac_lock_mismatch', detail, holderInfo(state));
}

/**
 * 423: a run holds the state from its plan until it applies or ends (`hold_until_apply`). Terraform prints
 * the info: `Who` names the run and `Info` why, `ID` the lock if one is taken too (an admin's force-unlock
 * ends both).
 */
export function stateHeld(state: IacStateRow): Problem {
  return problem('iac_state_locked', `State ${state.name} is held by run ${state.hold_run_id ?? ''} until it applies or ends.`, {
    ...holderInfo(state),
    ID: state.lock_id ?? '',
    Who: `run ${state.hold_run_id ?? ''} (step ${state.hold_step_id ?? ''})`,
    Info: 'held from its plan until the run applies or ends (hold_until_apply)',
  });
}

/** Whether a hold keeps `runId` (none: a user) out: the state is held, by another run. */
export function heldFrom(state: IacStateRow, runId: string | undefined): boolean {
  return state.hold_run_id !== null && state.hold_run_id !== runId;
}

export function sameLock(state: IacStateRow, info: LockInfo): boolean {
  return state.lock_id === info.ID;
}
