/** How long a browser's EventSource waits before reconnecting (the first thing a stream sends). */
export const RETRY_FRAME = 'retry: 3000\n\n';

/** A comment line: keeps proxies and load balancers from closing a quiet stream. */
export const KEEPALIVE_FRAME = ': keepalive\n\n';

/** One frame: `id:` the stream's position after it, `event:` its name, `data:` one line of JSON. */
export function dataFrame(id: number, event: string, data: unknown): string {
  // A name is one line of text; a line break would end the field and start another.
  const name = event.replace(/[\r\n]/g, ' ');
  return `id: ${id}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The last frame, once the run is terminal and everything was sent. No `id:`: the position stays the last frame's. */
export function endFrame(status: string): string {
  return `event: end\ndata: ${JSON.stringify({ status })}\n\n`;
}
