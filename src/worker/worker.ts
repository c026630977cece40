import { hostname } from 'node:os';
import {
  heartbeatAnswer,
  MAX_HEARTBEAT_WAIT_SECONDS,
  type Assignment,
  type HeartbeatAnswer,
  type HeartbeatBody,
} from '../shared/api/workers.js';
import { SVC_VERSION } from '../shared/version.js';
import { HttpRunCallbacks } from './callbacks.js';
import { RUNNABLE_HANDLERS } from './handlers/index.js';
import type { StepHandlerRun } from './handlers/types.js';
import { InternalHttp } from './http-client.js';
import { HttpMonitorCallbacks } from './monitor-callbacks.js';
import { SILENT_LOG, type WorkerLog } from './log.js';
import { abortableDelay, CALLBACK_RETRY, HEARTBEAT_RETRY, type RetryPolicy } from './retry.js';
import { DEFAULT_OUTBOUND, stepOutbound, type OutboundSettings, type StepOutbound } from './outbound.js';
import { RunControl } from './run-control.js';
import { executeRun, type RunOutcome } from './run-executor.js';

export interface ReferenceWorkerOptions {
  readonly serverUrl: string;
  readonly internalApiToken: string | undefined;
  readonly workerId: string;
  readonly capacity: number;
  readonly shutdownGraceSeconds: number;
  readonly log?: WorkerLog;
  readonly hostname?: string;
  /** Tests shorten these; the defaults are retry.ts's. */
  readonly callbackRetry?: RetryPolicy;
  readonly heartbeatRetry?: RetryPolicy;
  /** The handler table; the worker's own by default (a test may add one). */
  readonly handlers?: ReadonlyMap<string, StepHandlerRun>;
  /** SERVICE_OUTBOUND_*: where a step may send (`flow.notify`); the daemon's defaults when absent. */
  readonly outboundAllowedNetworks?: OutboundSettings['outboundAllowedNetworks'];
  readonly outboundTimeoutMs?: OutboundSettings['outboundTimeoutMs'];
}

interface HeldRun {
  readonly assignment: Assignment;
  readonly control: RunControl;
  done: Promise<RunOutcome>;
}

/** The answer's own margin over the long poll: the daemon may take a moment past `wait_s` to answer. */
const HEARTBEAT_TIMEOUT_MARGIN_MS = 15_000;
/** Once a stopping worker has aborted its runs, how long their last step-run reports may take. */
const STOP_REPORT_MS = 15_000;

/**
 * The reference worker: heartbeats (the long-polled claim, renewing the leases of the runs it holds),
 * executes each assigned run beside the heartbeat loop, and acts on each answer's cancel, pause and lost
 * lists. `stop()` drains: claims nothing more, lets running runs finish within the grace period, then
 * hands back the rest (docs/worker.md).
 */
export class ReferenceWorker {
  readonly #http: InternalHttp;
  readonly #log: WorkerLog;
  readonly #outbound: StepOutbound;
  readonly #held = new Map<string, HeldRun>();
  /** Runs to hand back in the next heartbeat (run id -> attempt). */
  readonly #toRelease = new Map<string, number>();
  #heartbeatS: number = MAX_HEARTBEAT_WAIT_SECONDS;
  #draining = false;
  #stopped = false;
  #stopping: Promise<void> | undefined;
  #loop: Promise<void> | undefined;
  /** The heartbeat in flight, and whether it may claim (one that may not can be cut short safely). */
  #inFlight: { readonly claims: boolean; readonly abort: AbortController } | undefined;
  #nap: AbortController | undefined;

  constructor(private readonly options: ReferenceWorkerOptions) {
    this.#http = new InternalHttp(options.serverUrl, options.internalApiToken, options.callbackRetry ?? CALLBACK_RETRY);
    this.#log = options.log ?? SILENT_LOG;
    this.#outbound = stepOutbound({
      outboundAllowedNetworks: options.outboundAllowedNetworks ?? DEFAULT_OUTBOUND.outboundAllowedNetworks,
      outboundTimeoutMs: options.outboundTimeoutMs ?? DEFAULT_OUTBOUND.outboundTimeoutMs,
    });
  }

  get workerId(): string {
    return this.options.workerId;
  }

  /** Run ids this worker holds now. */
  heldRuns(): string[] {
    return [...this.#held.keys()];
  }

  start(): void {
    if (this.#loop) return;
    this.#log.info(
      { worker_id: this.options.workerId, server_url: this.options.serverUrl, capacity: this.options.capacity },
      'svcd worker started',
    );
    this.#loop = this.#heartbeatLoop();
  }

  /** Drains and stops; resolves once every run ended or was handed back and the loop has stopped. */
  stop(): Promise<void> {
    this.#stopping ??= this.#drain();
    return this.#stopping;
  }

  async #drain(): Promise<void> {
    this.#draining = true;
    this.#log.info({ held: this.#held.size, grace_s: this.options.shutdownGraceSeconds }, 'svcd worker draining');
    // A run that has started no step is handed back at once: another worker can take it now.
    for (const run of this.#held.values()) if (!run.control.stepStarted) run.control.stop('shutdown');
    // Even a heartbeat that may claim is cut short now, or a stop would wait out its long poll. The daemon
    // claims nothing for a request whose caller has gone; a run claimed in the instant before is requeued
    // by the reaper when its lease lapses (no step of it started).
    this.#inFlight?.abort.abort('prompt');
    this.#prompt();
    const everyRun = () => Promise.all([...this.#held.values()].map((run) => run.done));
    if (!(await within(everyRun(), this.options.shutdownGraceSeconds * 1000))) {
      for (const run of this.#held.values()) run.control.stop('shutdown');
      await within(everyRun(), STOP_REPORT_MS);
    }
    this.#stopped = true;
    this.#prompt();
    this.#nap?.abort('stop');
    await this.#loop;
    // The last word: what is handed back, and nothing held.
    await this.#heartbeat().catch((error: unknown) => this.#log.warn({ err: error }, 'last heartbeat failed'));
    this.#outbound.close();
    this.#log.info({ released: this.#toRelease.size }, 'svcd worker stopped');
  }

  async #heartbeatLoop(): Promise<void> {
    let failures = 0;
    while (!this.#stopped) {
      try {
        this.#apply(await this.#heartbeat());
        failures = 0;
      } catch (error) {
        if (this.#stopped) break;
        if (error === 'prompt') continue;
        failures += 1;
        this.#log.warn({ err: error, failures }, 'heartbeat failed');
        this.#nap = new AbortController();
        await abortableDelay(Math.min(5_000, 250 * 2 ** failures) * (0.5 + Math.random() / 2), this.#nap.signal).catch(() => {});
      }
    }
  }

  async #heartbeat(): Promise<{ answer: HeartbeatAnswer; sent: HeartbeatBody }> {
    const sent = this.#heartbeatBody();
    const abort = new AbortController();
    this.#inFlight = { claims: sent.free_slots > 0, abort };
    try {
      const raw = await this.#http.call('POST', '/internal/workers/heartbeat', {
        body: sent,
        signal: abort.signal,
        retry: this.options.heartbeatRetry ?? HEARTBEAT_RETRY,
        timeoutMs: sent.wait_s * 1000 + HEARTBEAT_TIMEOUT_MARGIN_MS,
      });
      for (const released of sent.released) this.#toRelease.delete(released.run_id);
      return { answer: heartbeatAnswer.parse(raw), sent };
    } finally {
      if (this.#inFlight?.abort === abort) this.#inFlight = undefined;
    }
  }

  #heartbeatBody(): HeartbeatBody {
    const running = [...this.#held.values()].map(({ assignment }) => ({ run_id: assignment.run_id, attempt: assignment.attempt }));
    const released = [...this.#toRelease].map(([run_id, attempt]) => ({ run_id, attempt }));
    const freeSlots = this.#draining ? 0 : Math.max(0, this.options.capacity - this.#busy());
    // Nothing to wait for when there is something to say at once (a hand-back, the last word).
    const waitS = this.#stopped || released.length > 0 ? 0 : Math.min(MAX_HEARTBEAT_WAIT_SECONDS, Math.max(0, this.#heartbeatS));
    return {
      worker_id: this.options.workerId,
      hostname: this.options.hostname ?? hostname(),
      version: SVC_VERSION,
      handlers: [...(this.options.handlers ?? RUNNABLE_HANDLERS).keys()],
      running,
      released,
      free_slots: freeSlots,
      wait_s: waitS,
      ...(this.#draining ? { draining: true } : {}),
    };
  }

  #apply({ answer, sent }: { answer: HeartbeatAnswer; sent: HeartbeatBody }): void {
    this.#heartbeatS = answer.heartbeat_s;
    for (const runId of answer.lost) {
      const run = this.#held.get(runId);
      if (!run) continue;
      this.#log.warn({ run_id: runId }, 'run lost: dropped');
      run.control.stop('lost');
      this.#held.delete(runId);
    }
    for (const runId of answer.cancel) this.#held.get(runId)?.control.stop('cancel');
    const paused = new Set(answer.pause);
    const named = new Set(sent.running.map((run) => run.run_id));
    for (const [runId, run] of this.#held) if (named.has(runId)) run.control.setPaused(paused.has(runId));
    for (const assignment of answer.assignments) this.#take(assignment, paused.has(assignment.run_id));
  }

  #take(assignment: Assignment, paused: boolean): void {
    // A newer attempt of a run this worker still lists is that run resumed (after an approval, whose
    // request ended the old execution): the new one replaces it; #ended leaves the newer entry alone.
    const held = this.#held.get(assignment.run_id);
    if (held && held.assignment.attempt >= assignment.attempt) return;
    if (this.#draining || this.#busy() >= this.options.capacity) {
      this.#toRelease.set(assignment.run_id, assignment.attempt);
      this.#prompt();
      return;
    }
    const control = new RunControl(paused || assignment.status === 'paused');
    const run: HeldRun = { assignment, control, done: Promise.resolve('finished') };
    this.#held.set(assignment.run_id, run);
    this.#log.info({ run_id: assignment.run_id, attempt: assignment.attempt }, 'run assigned');
    run.done = executeRun({
      assignment,
      callbacks: new HttpRunCallbacks(this.#http, assignment.run_id, this.options.workerId, assignment.attempt),
      monitors: new HttpMonitorCallbacks(this.#http, assignment.run_id, this.options.workerId, assignment.attempt),
      control,
      draining: () => this.#draining,
      onSlotChange: () => this.#prompt(),
      log: this.#log,
      outbound: this.#outbound,
      ...(this.options.handlers ? { handlers: this.options.handlers } : {}),
    }).then((outcome) => {
      this.#ended(run, outcome);
      return outcome;
    });
  }

  #ended(run: HeldRun, outcome: RunOutcome): void {
    const { run_id: runId, attempt } = run.assignment;
    this.#log.info({ run_id: runId, attempt, outcome }, 'run execution ended');
    if (this.#held.get(runId) === run) this.#held.delete(runId);
    if (outcome === 'released') this.#toRelease.set(runId, attempt);
    // Also after `awaiting_approval`: the daemon holds the run now, so it is not named again and its slot is free.
    this.#prompt();
  }

  /** Runs taking a slot: every held run but those only waiting for a child run. */
  #busy(): number {
    let busy = 0;
    for (const run of this.#held.values()) if (!run.control.waitingOnChild) busy += 1;
    return busy;
  }

  /** Sends the next heartbeat now if the one in flight claims nothing (cutting it short loses nothing). */
  #prompt(): void {
    if (this.#inFlight && !this.#inFlight.claims) this.#inFlight.abort.abort('prompt');
    this.#nap?.abort('prompt');
  }
}

/** True if `promise` settled within `ms`; the timer is cleared either way, so nothing keeps the process up. */
async function within(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  const timedOut = abortableDelay(ms, timer.signal).then(
    () => false,
    () => true,
  );
  try {
    return await Promise.race([promise.then(() => true), timedOut]);
  } finally {
    timer.abort();
  }
}
