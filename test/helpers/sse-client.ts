import { expect } from 'vitest';
import { request, type IncomingMessage } from 'node:http';

/** One parsed frame of a server-sent-events stream (the WHATWG rules, enough for what the daemon sends). */
export interface SseFrame {
  readonly id: string | undefined;
  readonly event: string;
  readonly data: string;
}

/**
 * A real SSE reader over Node's http (no EventSource: it reconnects on its own, which the tests do by
 * hand, with a new ticket and the position): frames, comments, `retry:`, and how the stream ended.
 */
export class SseClient {
  readonly frames: SseFrame[] = [];
  readonly comments: string[] = [];
  retry: number | undefined;
  /** Settles when the response ends or the connection closes; `clean` when the body ended normally. */
  readonly ended: Promise<{ clean: boolean }>;
  #response!: IncomingMessage;
  #waiters: (() => void)[] = [];
  #buffer = '';
  #frame: { id?: string; event?: string; data: string[] } = { data: [] };

  private constructor(ended: Promise<{ clean: boolean }>) {
    this.ended = ended;
  }

  /** Opens the stream; answers with the status and, for a 200, a client reading it. */
  static open(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; client?: SseClient }> {
    return new Promise((resolve, reject) => {
      const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (response) => {
        if (response.statusCode !== 200) {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode!, body }));
          return;
        }
        let settle!: (value: { clean: boolean }) => void;
        const client = new SseClient(new Promise((r) => (settle = r)));
        client.#response = response;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => client.#feed(chunk));
        response.on('end', () => {
          settle({ clean: true });
          client.#wake();
        });
        response.on('close', () => {
          settle({ clean: response.complete });
          client.#wake();
        });
        response.on('error', () => undefined);
        resolve({ status: 200, body: '', client });
      });
      req.on('error', reject);
      req.end();
    });
  }

  get headers(): IncomingMessage['headers'] {
    return this.#response.headers;
  }

  /** Event frames only (not `end`). */
  get events(): { seq: number; type: string; data: Record<string, unknown> }[] {
    return this.frames
      .filter((f) => f.event !== 'end')
      .map((f) => {
        const parsed = JSON.parse(f.data) as { seq: number; type: string; data: Record<string, unknown> };
        expect(String(parsed.seq)).toBe(f.id);
        expect(parsed.type).toBe(f.event);
        return parsed;
      });
  }

  /** Waits until `done()` holds (checked on every frame and at the end), or `timeoutMs` passes. */
  async until(done: () => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline)
        throw new Error(`SSE: condition not met in ${timeoutMs} ms; frames: ${JSON.stringify(this.frames.slice(-3))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 50);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Stops reading: the kernel's buffers fill and the server's writes back up. */
  pause(): void {
    this.#response.pause();
  }

  /** Reads again (after `pause`). */
  resume(): void {
    this.#response.resume();
  }

  close(): void {
    this.#response.destroy();
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }

  #feed(chunk: string): void {
    this.#buffer += chunk;
    let newline: number;
    while ((newline = this.#buffer.indexOf('\n')) >= 0) {
      const line = this.#buffer.slice(0, newline).replace(/\r$/, '');
      this.#buffer = this.#buffer.slice(newline + 1);
      this.#line(line);
    }
    this.#wake();
  }

  #line(line: string): void {
    if (line === '') {
      if (this.#frame.data.length > 0) {
        this.frames.push({ id: this.#frame.id, event: this.#frame.event ?? 'message', data: this.#frame.data.join('\n') });
      }
      this.#frame = { data: [] };
      return;
    }
    if (line.startsWith(':')) {
      this.comments.push(line.slice(1).trim());
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') this.#frame.id = value;
    else if (field === 'event') this.#frame.event = value;
    else if (field === 'data') this.#frame.data.push(value);
    else if (field === 'retry') this.retry = Number(value);
  }
}
