import { type Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';

export const monitorNotFound = (): Problem => problems.resourceNotFound('Monitor');

export const monitorRunLimit = (runId: string, limit: number): Problem =>
  problem('monitor_run_limit', `A run opens at most ${limit} monitors.`, { limit, run_id: runId });

export const monitorClosed = (monitorId: string): Problem =>
  problem('monitor_closed', 'The monitor is closed: it takes no more samples or changes.', { monitor_id: monitorId });
