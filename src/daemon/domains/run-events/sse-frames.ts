import type { RunEvent } from '../../../shared/api/run-events.js';

/** How long a browser's EventSource waits before reconnecting (the first thing a stream sends). */
export const RETRY_FRAME = 'retry: 3000\n\n';

/** A comment line: keeps proxies and load balancers from closing a quiet stream. */
export const KEEPALIVE_FRAME = ': keepalive\n\n';

/** One event: `id:` its sequence number, `event:` its type, `data:` the event as JSON (one line). */
export function eventFrame(event: RunEvent): string {
  // A type is one line of text; a line break would end the field and start another.
  const type = event.type.replace(/[\r\n]/g, ' ');
  return `id: ${event.seq}\nevent: ${type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** The last frame, once the run is terminal and every event was sent. No `id:`: the position stays the last event's. */
export function endFrame(status: string): string {
  return `event: end\ndata: ${JSON.stringify({ status })}\n\n`;
}
