import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';

/**
 * A loopback HTTP proxy in front of a daemon that forwards every request as it is, except the ones a test
 * picks: the next requests matching `failures[i].match` (`METHOD /path`) are answered with its statuses
 * first, one each, without reaching the daemon (a 503 from a load balancer, say). Records what it saw.
 */
export class HttpForwarder {
  readonly failures: { match: RegExp; statuses: number[] }[] = [];
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
}
