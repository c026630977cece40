import type { RunEvent } from '../../../shared/api/run-events.js';
import { dataFrame } from '../../live-streams/sse-frames.js';

/** One event of the live stream: `id:` its sequence number, `event:` its type, `data:` the event as JSON (one line). */
export function eventFrame(event: RunEvent): string {
  return dataFrame(event.seq, event.type, event);
}
