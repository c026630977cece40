import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

/**
 * A loopback HTTP proxy in front of a daemon that forwards every request as it is, except the ones a test
 * picks: the next requests matching `failures[i].match` (`METHOD /path`) are answered with its statuses
 * first, one each, without reaching the daemon (a 503 from a load balancer, say); before the next request
 * matching `interleaved[i].match` is forwarded, its `work` runs once (another client's request landing
 * between two of the one under test). Records what it saw.
 */
export class HttpForwarder {
  readonly failures: { match: RegExp; statuses: number[] }[] = [];
  readonly interleaved: { match: RegExp; work: (() => Promise<unknown>) | undefined }[] = [];
  readonly seen: { line: string; status: number }[] = [];
  #server: Server | undefined;
  url = '';

  constructor(private readonly target: string) {}

  async start(): Promise<void> {
    const target = new URL(this.target);
    const server = createServer((req, res) => {
      const line = `${req.method} ${req.url}`;
      const injected = this.failures.find((f) => f.match.test(line) && f.statuses.length > 0)?.statuses.shift();
      if (injected !== undefined) {
        req.resume();
        this.seen.push({ line, status: injected });
        res.writeHead(injected, { 'content-type': 'text/plain' }).end('injected');
        return;
      }
      const work = this.interleaved.find((i) => i.match.test(line) && i.work !== undefined);
      const before = work?.work;
      if (work) work.work = undefined;
      void (before ? before() : Promise.resolve()).then(() => this.#forward(target, req, res, line));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    this.#server = server;
    this.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  }

  #forward(target: URL, req: IncomingMessage, res: ServerResponse, line: string): void {
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        this.seen.push({ line, status: answer.statusCode ?? 0 });
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }

  async stop(): Promise<void> {
    this.#server?.closeAllConnections();
    await new Promise((resolve) => this.#server?.close(resolve));
  }
}
