import { once } from 'node:events';
import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * What the link does with the bytes: `forward` them; `partition`: accept connections and keep every
 * socket open but forward nothing either way and never connect upstream (packets going nowhere, no
 * reset); `reset`: end every connection at once, existing and new (a pooler in front, sessions killed),
 * by a TCP reset (`rst`) or an orderly close (`fin`); `answers-lost`: forward the client's bytes to the
 * server but drop the server's (a statement runs and commits, its acknowledgement never arrives).
 */
export type LinkMode = 'forward' | 'partition' | 'reset' | 'answers-lost';
export type ResetKind = 'rst' | 'fin';

/**
 * A loopback TCP proxy in front of a real server, which a test can stop (the address then refuses
 * connections, as when the database is down) and start again on the same port, or switch between
 * forwarding, a partition and resets (`heal` forwards again).
 */
export class TcpProxy {
  #server: Server | undefined;
  readonly #sockets = new Set<Socket>();
  #mode: LinkMode = 'forward';
  #resetKind: ResetKind = 'rst';
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  get mode(): LinkMode {
    return this.#mode;
  }

  async start(): Promise<void> {
    const server = createServer((client) => this.#accept(client));
    server.listen(this.port, '127.0.0.1');
    await once(server, 'listening');
    this.port = (server.address() as { port: number }).port;
    this.#server = server;
  }

  /** Bytes go nowhere from now on, on open connections and new ones; nothing is closed. */
  partition(): void {
    this.#mode = 'partition';
    for (const socket of this.#sockets) socket.pause();
  }

  /** The server's bytes go nowhere from now on while the client's still reach it; nothing is closed. */
  loseAnswers(): void {
    this.#mode = 'answers-lost';
  }

  /** Every open connection is ended, and every new one is accepted and ended: reset, or closed (`fin`). */
  reset(kind: ResetKind = 'rst'): void {
    this.#mode = 'reset';
    this.#resetKind = kind;
    for (const socket of this.#sockets) this.#end(socket);
  }

  /**
   * Forwards again. Connections held during a partition (or that lost answers) are closed: what they carried meanwhile is
   * gone, as across a real partition longer than TCP's retransmissions.
   */
  heal(): void {
    if (this.#mode === 'partition' || this.#mode === 'answers-lost') for (const socket of this.#sockets) socket.destroy();
    this.#mode = 'forward';
  }

  async stop(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    const server = this.#server;
    this.#server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  #end(socket: Socket): void {
    socket.on('error', () => {});
    if (this.#resetKind === 'rst') socket.resetAndDestroy();
    else socket.destroy();
  }

  #track(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
  }

  #accept(client: Socket): void {
    if (this.#mode === 'reset') {
      this.#end(client);
      return;
    }
    this.#track(client);
    if (this.#mode === 'partition') {
      // Held open and never read: the peer's bytes sit in the kernel's buffers, unanswered.
      client.on('error', () => {});
      client.pause();
      return;
    }
    const upstream = connect(this.target.port, this.target.host);
    this.#track(upstream);
    for (const socket of [client, upstream]) {
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    // Piped by hand so a partition can drop what is already in flight instead of delivering it later.
    const forward = (from: Socket, to: Socket, alsoWhen?: LinkMode) =>
      from.on('data', (chunk: Buffer) => {
        if (this.#mode === 'forward' || this.#mode === alsoWhen) to.write(chunk);
      });
    forward(client, upstream, 'answers-lost');
    forward(upstream, client);
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
  }
}
