/**
 * A run's statuses, and the ones it never leaves: the daemon, the reference worker and the CLI decide on
 * the same lists. No zod here, so the CLI can read them without loading it.
 */

export const RUN_STATUSES = ['queued', 'running', 'paused', 'succeeded', 'failed', 'cancelled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Succeeded, failed, cancelled: a run in one of these never changes again. */
export const FINISHED_RUN_STATUSES: readonly RunStatus[] = ['succeeded', 'failed', 'cancelled'];

export function isFinishedRun(status: string): boolean {
  return (FINISHED_RUN_STATUSES as readonly string[]).includes(status);
}
