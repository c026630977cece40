import type { RunStatus } from './run-view.js';

/**
 * The run state machine as the control routes move it (a worker moves queued -> running -> succeeded /
 * failed through the internal callbacks):
 *
 * | Command | From | To |
 * |---|---|---|
 * | cancel | queued, running, paused, awaiting_approval | cancelled (a pending approval is cancelled with it) |
 * | pause | queued, running | paused (a queued run is held: it will not be dispatched) |
 * | resume | paused | running if a worker holds it (`worker_id`), else queued |
 *
 * Anything else is refused with 409 `invalid_run_state`: an `awaiting_approval` run is not paused (no
 * worker holds it; its approvers decide, or it is cancelled). Deleting and purging need a finished run.
 * The approvals domain moves running -> awaiting_approval -> queued or failed (docs/approvals.md).
 */
export type RunCommand = 'cancel' | 'pause' | 'resume';

export const ACTIVE_STATUSES: readonly RunStatus[] = ['queued', 'running', 'paused', 'awaiting_approval'];

export function nextStatus(
  run: { readonly status: RunStatus; readonly worker_id: string | null },
  command: RunCommand,
): RunStatus | undefined {
  switch (command) {
    case 'cancel':
      return ACTIVE_STATUSES.includes(run.status) ? 'cancelled' : undefined;
    case 'pause':
      return run.status === 'queued' || run.status === 'running' ? 'paused' : undefined;
    case 'resume':
      if (run.status !== 'paused') return undefined;
      // The holder, not `started_at`: an approved run is queued again with its `started_at` kept, and
      // resumed to `running` it would wait for a worker that no longer holds it, never to be claimed.
      return run.worker_id === null ? 'queued' : 'running';
  }
}
