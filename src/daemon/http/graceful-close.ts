import type { RequestListener, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { Logger } from '../logging/logger.js';

/**
 * How long a connection that is idle when the stop begins stays open for a request its client may be
 * sending at that moment. Long enough for a request already on its way (or a busy client's next one)
 * to arrive, short enough that a client holding an idle connection does not hold up the stop: its
 * request would race with the close at any moment, as with any keep-alive timeout.
 */
const IDLE_LINGER_MS = 250;

/**
 * A graceful stop that answers every request whose bytes arrived before its connection was closed.
 * `http.Server.close()` destroys every idle keep-alive connection at once (Node 19+), and a request its
 * client had just sent on one, still unread in the kernel's buffer, is then reset instead of answered.
 * Here the server stops accepting, connections busy with a request are answered (`Connection: close`
 * while draining, set by the request path) and end with that answer, idle ones end once quiet for
 * IDLE_LINGER_MS (a request arriving meanwhile is answered the same way), and the grace period's end
 * cuts whatever is left.
 */
export class GracefulClose {
  /** Open connections, each with its latest response (undefined before the first request). */
  readonly #connections = new Map<Socket, ServerResponse | undefined>();
  #closing = false;

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.#connections.set(socket, undefined);
      socket.once('close', () => this.#connections.delete(socket));
    });
  }

  /** The server's request listener, noting each connection's latest response. */
  track(listener: RequestListener): RequestListener {
    return (req, res) => {
      if (this.#connections.has(req.socket)) {
        this.#connections.set(req.socket, res);
        if (this.#closing) this.#endAfter(req.socket, res);
      }
      listener(req, res);
    };
  }

  /** Stops accepting, lets the open connections end as described above, and answers once all have. */
  async close(graceMs: number, log: Logger): Promise<void> {
    this.#closing = true;
    // net.Server's close, not http.Server's: it stops accepting without destroying idle connections.
    const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(this.server, () => resolve()));
    for (const [socket, response] of this.#connections) {
      if (this.#idle(socket)) this.#endWhenQuiet(socket, socket.bytesRead);
      else this.#endAfter(socket, response!);
    }
    const timer = setTimeout(() => {
      log.warn({ grace_ms: graceMs }, 'grace period over: closing connections with requests still in flight');
      this.server.closeAllConnections();
    }, graceMs);
    await closed;
    clearTimeout(timer);
    // Nothing is left to close; what http.Server's close adds is stopping its timeout checks.
    this.server.close();
  }

  /**
   * An answer normally ends its connection while draining (`Connection: close`), but one whose headers
   * went out before the stop began keeps it alive: that connection then ends like an idle one.
   */
  #endAfter(socket: Socket, response: ServerResponse): void {
    response.once('finish', () => this.#endWhenQuiet(socket, socket.bytesRead));
  }

  #idle(socket: Socket): boolean {
    const response = this.#connections.get(socket);
    return response === undefined || response.writableFinished;
  }

  /**
   * Ends the connection if nothing arrived on it for IDLE_LINGER_MS; otherwise a request is arriving,
   * and its answer (`Connection: close`) ends the connection. Decided after the event loop's poll
   * phase, so bytes already in the kernel's buffer count as arrived rather than being reset.
   */
  #endWhenQuiet(socket: Socket, bytesRead: number): void {
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (socket.bytesRead === bytesRead && this.#idle(socket)) socket.destroy();
      });
    }, IDLE_LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  }
}
