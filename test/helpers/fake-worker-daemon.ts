import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Assignment, HeartbeatAnswer, HeartbeatBody } from '../../src/shared/api/workers.js';

export interface FakeCall {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: unknown;
}

/**
 * A stand-in for the daemon's worker side, for the worker's own loop before (and beside) the real routes:
 * each heartbeat is answered after a short wait with the queued assignments (as many as the free slots)
 * and the cancel / pause / lost lists the test sets; every callback is recorded and answered as the
 * daemon would. `failures` makes chosen requests answer a status first (a 503 to retry).
 */
export class FakeWorkerDaemon {
  readonly calls: FakeCall[] = [];
  readonly queue: Assignment[] = [];
  readonly cancel = new Set<string>();
  readonly pause = new Set<string>();
  readonly lost = new Set<string>();
  /** Statuses the next requests matching `path` answer first, one each (a 503 to be retried). */
  readonly failures: { path: RegExp; statuses: number[] }[] = [];
  #server: Server | undefined;
  #ids = 0;
  url = '';

  async start(): Promise<void> {
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const body = text === '' ? undefined : (JSON.parse(text) as unknown);
        this.calls.push({ method: req.method!, path: req.url!, headers: req.headers, body });
        const status = this.failures.find((f) => f.path.test(`${req.method} ${req.url}`))?.statuses.shift();
        if (status !== undefined) {
          res.writeHead(status, { 'content-type': 'application/problem+json' }).end(JSON.stringify({ code: 'fake' }));
          return;
        }
        void this.#answer(req.method!, req.url!, body).then(([code, answer]) => {
          res.writeHead(code, { 'content-type': 'application/json' }).end(answer === undefined ? '' : JSON.stringify(answer));
        });
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.#server = server;
    this.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((resolve) => this.#server?.close(resolve));
  }

  heartbeats(): HeartbeatBody[] {
    return this.calls.filter((c) => c.path === '/internal/workers/heartbeat').map((c) => c.body as HeartbeatBody);
  }

  callbacks(): FakeCall[] {
    return this.calls.filter((c) => c.path !== '/internal/workers/heartbeat');
  }

  async #answer(method: string, path: string, body: unknown): Promise<[number, unknown]> {
    if (path === '/internal/workers/heartbeat') return [200, await this.#heartbeat(body as HeartbeatBody)];
    if (method === 'POST' && (path.endsWith('/step-runs') || path.endsWith('/approvals') || path === '/internal/runs'))
      return [201, { id: `fake-${++this.#ids}` }];
    if (method === 'POST' && path.endsWith('/events')) return [200, { accepted: 1, duplicates: 0, last_seq: 1 }];
    return [200, {}];
  }

  async #heartbeat(body: HeartbeatBody): Promise<HeartbeatAnswer> {
    if (body.wait_s > 0 && this.queue.length === 0) await new Promise((resolve) => setTimeout(resolve, 30));
    const named = new Set(body.running.map((r) => r.run_id));
    return {
      assignments: body.draining ? [] : this.queue.splice(0, body.free_slots),
      cancel: [...this.cancel].filter((id) => named.has(id)),
      pause: [...this.pause].filter((id) => named.has(id)),
      lost: [...this.lost].filter((id) => named.has(id)),
      heartbeat_s: 1,
      lease_s: 3,
    };
  }
}
