import type { RunEvent } from '../../../shared/api/run-events.js';

/** The clock time of an event's timestamp (`12:00:03`), or nothing when it has none. */
function clock(ts: string): string {
  const match = /T(\d{2}:\d{2}:\d{2})/.exec(ts);
  return match === null ? '' : `${match[1]} `;
}

const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** What an event says, in words: the daemon's state changes and the worker's logs, anything else as its type and data. */
export function describeEvent(event: RunEvent): string {
  const d = event.data;
  switch (event.type) {
    case 'run.status':
      return `run ${text(d.from)} -> ${text(d.to)}${d.reason === undefined ? '' : ` (${text(d.reason)})`}`;
    case 'step.status':
      return `step ${text(d.step_id ?? event.step_id)}${d.handler === undefined ? '' : ` (${text(d.handler)})`} ${text(d.from ?? '-')} -> ${text(d.to)}`;
    case 'log':
      return `${event.step_id === null ? '' : `${event.step_id}: `}[${text(d.level ?? 'info')}] ${text(d.message)}`;
    case 'handler_unavailable':
      return `handler ${text(d.handler)} unavailable${d.reason === undefined ? '' : `: ${text(d.reason)}`}`;
    default:
      return `${event.type}${event.step_id === null ? '' : ` ${event.step_id}`} ${JSON.stringify(d)}`;
  }
}

/** One line per event for people: `#seq time what`. */
export const progressLine = (event: RunEvent) => `#${event.seq} ${clock(event.ts)}${describeEvent(event)}`;

/**
 * What someone following a run is told (on stderr) when it starts waiting at an approval gate: the run
 * is not over, following goes on, and how to decide. Nothing for any other event.
 */
export function awaitingApprovalNote(runId: string, event: RunEvent): string | undefined {
  if (event.type !== 'run.status' || event.data.to !== 'awaiting_approval') return undefined;
  const approval = typeof event.data.approval_id === 'string' ? event.data.approval_id : undefined;
  const step = typeof event.data.step_id === 'string' ? ` at step ${event.data.step_id}` : '';
  const how =
    approval === undefined
      ? `svc approvals list --run ${runId}`
      : `svc approvals get ${approval}; svc approvals approve|reject ${approval}`;
  return `Run ${runId} is awaiting approval${step} (${how}); still waiting.`;
}
