import type { ServerResponse } from 'node:http';
import { endFrame, RETRY_FRAME } from './sse-frames.js';

/**
 * What a stream may hold in the socket's buffer beyond what the kernel took. A reader that is this far
 * behind is dropped (it resumes by id) rather than buffered for: one daemon serves many streams, and
 * each unread frame would stay in its memory.
 */
export const MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * One client's server-sent-events stream of one run: the response taken over from Koa, the position
 * (the last sequence number sent), and its end. `closed` settles however it ends: the run's end, the
 * client going away, a drop, the daemon's stop.
 */
export class LiveStream {
  /** The last sequence number sent (or the client's resume position before anything was). */
  position: number;
  readonly closed: Promise<void>;
  #open = true;

  constructor(
    readonly runId: string,
    private readonly response: ServerResponse,
    position: number,
    private readonly maxBufferedBytes = MAX_BUFFERED_BYTES,
  ) {
    this.position = position;
    // A client gone before the stream starts has already closed its response: nothing to wait for.
    const gone = response.destroyed || !response.socket || response.socket.destroyed;
    this.closed = gone ? Promise.resolve() : new Promise((resolve) => response.once('close', resolve));
    response.once('close', () => {
      this.#open = false;
    });
    if (gone) {
      this.#open = false;
      return;
    }
    response.socket?.setNoDelay(true);
    response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' });
    response.write(RETRY_FRAME);
  }

  get open(): boolean {
    return this.#open;
  }

  /** Writes a frame; false when the stream is closed, or is dropped now because its reader is too far behind. */
  send(frame: string): boolean {
    if (!this.#open) return false;
    if (this.response.write(frame) || this.response.writableLength <= this.maxBufferedBytes) return true;
    this.drop();
    return false;
  }

  /** The run is terminal and everything was sent: `event: end`, then the response ends. */
  end(status: string): void {
    if (!this.send(endFrame(status))) return;
    this.close();
  }

  /** Ends the response cleanly (the daemon's stop, the run gone): the client reconnects and resumes. */
  close(): void {
    if (!this.#open) return;
    this.#open = false;
    this.response.end();
  }

  /** Closes the connection at once, dropping whatever is buffered: the reader resumes by id. */
  drop(): void {
    this.#open = false;
    this.response.destroy();
  }
}
