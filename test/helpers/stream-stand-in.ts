import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';

/**
 * A stand-in for the daemon's run event stream (`GET /bff/runs/{run_id}/events/stream`) while that
 * route is built elsewhere: every other request is passed to the real daemon unchanged, and the stream
 * is served from the database as the contract says (frames `id: <seq>`, `event: <type>`, `data: <run
 * event>`, a final `event: end` once the run is terminal and every event was sent, `last_event_id` to
 * resume). A test can cut the first connection after some events and have the next one send again the
 * last event already sent, to see the CLI reconnect and drop the duplicate.
 */
export interface StandIn {
  readonly url: string;
  /** The `last_event_id` each stream connection asked for (undefined: none), in order. */
  readonly connections: (string | undefined)[];
  /** Cut the next stream connection after this many events (once). */
  dropAfter(events: number): void;
  close(): Promise<void>;
}

const TERMINAL = ['succeeded', 'failed', 'cancelled'];
const STREAM = /^\/bff\/runs\/([^/]+)\/events\/stream$/;

export async function startStreamStandIn(daemonUrl: string, knex: () => Knex): Promise<StandIn> {
  const target = new URL(daemonUrl);
  const connections: (string | undefined)[] = [];
  let drop: number | undefined;
  let resend = false;
  const open = new Set<ServerResponse>();

  const pass = (req: IncomingMessage, res: ServerResponse) => {
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(upstream);
  };

  const stream = async (runId: string, url: URL, res: ServerResponse) => {
    const resume = url.searchParams.get('last_event_id') ?? undefined;
    connections.push(resume);
    let after = Number(resume ?? 0);
    // A server that sends again what the client had: the client must not show it twice.
    if (resend && after > 0) after -= 1;
    resend = false;
    const cutAfter = drop;
    drop = undefined;
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write('retry: 100\n\n');
    open.add(res);
    let sent = 0;
    while (!res.destroyed) {
      const events = await knex()('run_events').where({ run_id: runId }).andWhere('seq', '>', after).orderBy('seq');
      for (const e of events) {
        const event = {
          seq: Number(e.seq),
          ts: new Date(e.ts).toISOString(),
          type: e.type,
          step_id: e.step_id,
          attempt: e.attempt,
          data: e.data,
        };
        const frame = `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
        await new Promise((resolve) => res.write(frame, resolve));
        after = event.seq;
        sent += 1;
        if (cutAfter !== undefined && sent >= cutAfter) {
          resend = true;
          // The connection closes mid-stream (no end of the chunked body), after the frames went out.
          res.socket?.end();
          return;
        }
      }
      const run = await knex()('runs').where({ id: runId }).first('status', 'event_seq');
      if (run !== undefined && TERMINAL.includes(run.status) && after >= Number(run.event_seq)) {
        res.end(`event: end\ndata: ${JSON.stringify({ status: run.status })}\n\n`);
        return;
      }
      res.write(': keepalive\n\n');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const match = req.method === 'GET' ? STREAM.exec(url.pathname) : null;
    if (match === null) return pass(req, res);
    res.on('close', () => open.delete(res));
    stream(decodeURIComponent(match[1]!), url, res).catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections,
    dropAfter: (events) => void (drop = events),
    close: async () => {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
