/**
 * A run's statuses, and the ones it never leaves: the daemon, the reference worker and the CLI decide on
 * the same lists. No zod here, so the CLI can read them without loading it.
 */

/** `awaiting_approval`: a step's approval gate is pending; no worker holds the run (docs/approvals.md). */
export const RUN_STATUSES = ['queued', 'running', 'paused', 'awaiting_approval', 'succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Succeeded, failed, cancelled: a run in one of these never changes again. */
export const FINISHED_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled'];

export function isFinishedRun(status: string): boolean {
  return (FINISHED_RUN_STATUSES as readonly string[]).includes(status);
}
