import { isFinishedRun } from '../../../shared/run-statuses.js';
import { RUN_EVENTS_CHANNEL } from '../../db/channels.js';
import type { Database, Listening } from '../../db/database.js';
import type { Logger } from '../../logging/logger.js';
import type { LiveStream } from './live-stream.js';
import type { EventsRead, RunEventsRepo } from './run-events-repo.js';
import { eventFrame, KEEPALIVE_FRAME } from './sse-frames.js';

/** How many events one read takes: a replay goes in pages of this many, then live. */
export const READ_PAGE = 500;

export interface HubOptions {
  readonly listen: Database['listen'];
  readonly repo: RunEventsRepo;
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
 * The live streams of this daemon, keyed by run. One LISTEN on the run events channel: a notification
 * (`<run_id>:<seq>`) causes one read of `seq > lowest position sent` for that run, shared by all its
 * local streams (never a read per stream); notifications that come while a read is under way fold into
 * one more read after it. Lost notifications are covered by a poll of every subscribed run and by a
 * re-read of all of them whenever the listener (re)connects. The run's status comes with the events, so
 * a stream ends (`event: end`) once the run is terminal and it has every event.
 */
export class RunEventsHub {
  readonly #runs = new Map<string, RunStreams>();
  #listener: Listening | undefined;
  #poll: NodeJS.Timeout | undefined;
  #keepalive: NodeJS.Timeout | undefined;
  #closed = false;
  #reads = 0;

  constructor(private readonly options: HubOptions) {}

  start(): void {
    this.#listener = this.options.listen(RUN_EVENTS_CHANNEL, (signal, payload) => {
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
    // Every local stream already has it (an earlier read took it): nothing to read.
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
        const read = await this.options.repo.read(runId, from, READ_PAGE);
        this.#deliver(run, read);
        if (read?.events.length === READ_PAGE) run.again = true;
      } while (run.again);
    } catch (error) {
      // The next notification or poll reads again from the same positions.
      this.options.log.warn({ err: error, run_id: runId }, 'reading run events for the live streams failed');
    } finally {
      run.reading = false;
      if (run.streams.size === 0 && this.#runs.get(runId) === run) this.#runs.delete(runId);
    }
  }

  #deliver(run: RunStreams, read: EventsRead | undefined): void {
    // The run is gone (purged or deleted): its streams close; a reconnect is told 404.
    if (!read) {
      for (const stream of run.streams) stream.close();
      return;
    }
    const frames = read.events.map((event) => ({ seq: event.seq, text: eventFrame(event) }));
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
