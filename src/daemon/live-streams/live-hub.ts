import { isFinishedRun } from '../../shared/run-statuses.js';
import type { Channel } from '../db/channels.js';
import type { Database, Listening } from '../db/database.js';
import type { Logger } from '../logging/logger.js';
import type { Services } from '../services.js';
import type { LiveStream } from './live-stream.js';
import { KEEPALIVE_FRAME } from './sse-frames.js';

/** How many frames one read takes: a replay goes in pages of this many, then live. */
export const READ_PAGE = 500;

/**
 * One read of a run's stream: what comes after a position, with the run's status and the position of its
 * last frame read in the same statement, so a reader that has everything up to `lastSeq` of a terminal
 * run knows it has it all.
 */
export interface LiveRead {
  readonly status: string;
  readonly lastSeq: number;
  /** Oldest first: each frame's position (its `id:`) and its text. */
  readonly frames: readonly { readonly seq: number; readonly text: string }[];
}

/** What a hub streams: the channel that says a run has more (`<run_id>:<seq>`), and how to read it. */
export interface LiveSource {
  readonly channel: Channel;
  /** What the log calls it ("run events", "monitor samples"). */
  readonly name: string;
  /** Frames with a position above `after`, at most `limit`; undefined when the run is gone. */
  read(runId: string, after: number, limit: number): Promise<LiveRead | undefined>;
}

/** What a source's read finds before it is framed: items with their stream position, oldest first. */
export interface ItemsRead<T extends { readonly seq: number }> {
  readonly status: string;
  readonly lastSeq: number;
  readonly items: readonly T[];
}

/** A source from a read of positioned items and how one item is framed. */
export function liveSource<T extends { readonly seq: number }>(source: {
  readonly channel: Channel;
  readonly name: string;
  readonly read: (runId: string, after: number, limit: number) => Promise<ItemsRead<T> | undefined>;
  readonly frame: (item: T) => string;
}): LiveSource {
  return {
    channel: source.channel,
    name: source.name,
    async read(runId, after, limit) {
      const read = await source.read(runId, after, limit);
      if (!read) return undefined;
      return {
        status: read.status,
        lastSeq: read.lastSeq,
        frames: read.items.map((item) => ({ seq: item.seq, text: source.frame(item) })),
      };
    },
  };
}

export interface HubOptions {
  readonly listen: Database['listen'];
  readonly source: LiveSource;
  readonly log: Logger;
  readonly pollSeconds: number;
  readonly keepaliveSeconds: number;
}

/** The local streams of one run, and its one read at a time. */
interface RunStreams {
  readonly streams: Set<LiveStream>;
  reading: boolean;
  /** Something new may have arrived during the read under way: read once more after it. */
  again: boolean;
}

/**
 * The live streams of one source (a run's events, a run's monitor samples) on this daemon, keyed by run.
 * One LISTEN on the source's channel: a notification
 * (`<run_id>:<seq>`) causes one read of `seq > lowest position sent` for that run, shared by all its
 * local streams (never a read per stream); notifications that come while a read is under way fold into
 * one more read after it. Lost notifications are covered by a poll of every subscribed run and by a
 * re-read of all of them whenever the listener (re)connects. The run's status comes with the frames, so
 * a stream ends (`event: end`) once the run is terminal and it has every frame.
 */
export class LiveHub {
  readonly #runs = new Map<string, RunStreams>();
  #listener: Listening | undefined;
  #poll: NodeJS.Timeout | undefined;
  #keepalive: NodeJS.Timeout | undefined;
  #closed = false;
  #reads = 0;

  constructor(private readonly options: HubOptions) {}

  start(): void {
    this.#listener = this.options.listen(this.options.source.channel, (signal, payload) => {
      if (signal === 'connected') this.#readAll();
      else if (payload !== undefined) this.#notified(payload);
    });
    this.#poll = setInterval(() => this.#readAll(), this.options.pollSeconds * 1000);
    this.#poll.unref();
    this.#keepalive = setInterval(() => this.#sendKeepalive(), this.options.keepaliveSeconds * 1000);
    this.#keepalive.unref();
  }

  /** Whether the hub takes no more streams (the daemon is stopping). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Starts serving a stream: its replay from its position, then live. */
  add(stream: LiveStream): void {
    if (this.#closed || !stream.open) return stream.close();
    let run = this.#runs.get(stream.runId);
    if (!run) this.#runs.set(stream.runId, (run = { streams: new Set(), reading: false, again: false }));
    run.streams.add(stream);
    void stream.closed.then(() => this.#remove(stream));
    this.#read(stream.runId);
  }

  /** Open streams, of one run or of all: what a test or an operator asks of the hub. */
  subscriberCount(runId?: string): number {
    if (runId !== undefined) return this.#runs.get(runId)?.streams.size ?? 0;
    let count = 0;
    for (const run of this.#runs.values()) count += run.streams.size;
    return count;
  }

  /** Reads of the database made for the streams so far: one per run per notification, poll or page, however many streams. */
  get reads(): number {
    return this.#reads;
  }

  /**
   * Ends every open stream cleanly at once and takes no new ones: the daemon's graceful stop must not
   * wait out its grace period on streams that never finish by themselves. Clients reconnect (to
   * another instance) and resume by id.
   */
  endAll(): void {
    this.#closed = true;
    for (const run of this.#runs.values()) for (const stream of run.streams) stream.close();
  }

  async stop(): Promise<void> {
    this.endAll();
    clearInterval(this.#poll);
    clearInterval(this.#keepalive);
    await this.#listener?.stop();
    this.#listener = undefined;
  }

  #remove(stream: LiveStream): void {
    const run = this.#runs.get(stream.runId);
    if (!run) return;
    run.streams.delete(stream);
    if (run.streams.size === 0 && !run.reading) this.#runs.delete(stream.runId);
  }

  #notified(payload: string): void {
    const colon = payload.lastIndexOf(':');
    const runId = payload.slice(0, colon);
    const seq = Number(payload.slice(colon + 1));
    const run = this.#runs.get(runId);
    if (!run) return;
    // Every local stream already has it (an earlier read took it): nothing to read. A payload with no
    // position (the run ended) always reads.
    if (Number.isFinite(seq) && [...run.streams].every((stream) => stream.position >= seq)) return;
    this.#read(runId);
  }

  #readAll(): void {
    for (const runId of this.#runs.keys()) this.#read(runId);
  }

  #read(runId: string): void {
    const run = this.#runs.get(runId);
    if (!run || this.#closed) return;
    if (run.reading) {
      run.again = true;
      return;
    }
    run.reading = true;
    void this.#readLoop(runId, run);
  }

  async #readLoop(runId: string, run: RunStreams): Promise<void> {
    try {
      do {
        run.again = false;
        if (run.streams.size === 0 || this.#closed) break;
        let from = Infinity;
        for (const stream of run.streams) from = Math.min(from, stream.position);
        this.#reads += 1;
        const read = await this.options.source.read(runId, from, READ_PAGE);
        this.#deliver(run, read);
        if (read?.frames.length === READ_PAGE) run.again = true;
      } while (run.again);
    } catch (error) {
      // The next notification or poll reads again from the same positions.
      this.options.log.warn({ err: error, run_id: runId }, `reading ${this.options.source.name} for the live streams failed`);
    } finally {
      run.reading = false;
      if (run.streams.size === 0 && this.#runs.get(runId) === run) this.#runs.delete(runId);
    }
  }

  #deliver(run: RunStreams, read: LiveRead | undefined): void {
    // The run is gone (purged or deleted): its streams close; a reconnect is told 404.
    if (!read) {
      for (const stream of run.streams) stream.close();
      return;
    }
    const { frames } = read;
    const terminal = isFinishedRun(read.status);
    for (const stream of [...run.streams]) {
      for (const frame of frames) {
        if (frame.seq <= stream.position) continue;
        if (!stream.send(frame.text)) break;
        stream.position = frame.seq;
      }
      if (terminal && stream.open && stream.position >= read.lastSeq) stream.end(read.status);
    }
  }

  #sendKeepalive(): void {
    for (const run of this.#runs.values()) for (const stream of run.streams) stream.send(KEEPALIVE_FRAME);
  }
}

/** The hub of one kind of live run stream, with the daemon's stream settings (poll, keepalive). */
export function liveHub(services: Services, source: LiveSource): LiveHub {
  const { config, db, log } = services;
  return new LiveHub({
    listen: db.listen,
    source,
    log,
    pollSeconds: config.streamPollSeconds,
    keepaliveSeconds: config.streamKeepaliveSeconds,
  });
}
