import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { RunEvent } from '../../shared/api/run-events.js';
import { CliError } from '../errors.js';
import { notSvc } from './answer.js';
import type { ApiClient } from './client.js';

/** What following a run's stream yields: its events in order, each once; a reconnection; the run's end. */
export type StreamItem =
  | { readonly kind: 'event'; readonly event: RunEvent }
  | { readonly kind: 'reconnecting'; readonly after: number; readonly reason: string; readonly delayMs: number }
  | { readonly kind: 'end'; readonly status: string };

export interface FollowOptions {
  /** Resume after this event (0: from the run's first). */
  readonly after?: number;
  /** Stops following (Ctrl-C, a view closed): the generator returns without an `end`. */
  readonly signal?: AbortSignal;
  /** A connection that sends nothing for this long (not even a keepalive comment) is taken as dropped. */
  readonly idleMs?: number;
  /** The wait before the first reconnection, until the server's `retry:` names its own; doubled per failure, at most 30 s. */
  readonly retryMs?: number;
  /** Reconnections in a row that bring no new event before giving up (exit 1). */
  readonly maxAttempts?: number;
}

const DEFAULT_IDLE_MS = 60_000;
const DEFAULT_RETRY_MS = 1_000;
const MAX_DELAY_MS = 30_000;
const DEFAULT_MAX_ATTEMPTS = 10;

/** The stream route: server-sent events of one run (docs/run-events.md). */
export const streamPath = (runId: string) => `/bff/runs/${encodeURIComponent(runId)}/events/stream`;

class IdleStream extends Error {}

/** A frame's data as a run event, or undefined for one that is not (skipped rather than ending the follow). */
function runEventOf(message: EventSourceMessage): RunEvent | undefined {
  try {
    const value = JSON.parse(message.data) as Partial<RunEvent> | null;
    if (value === null || typeof value !== 'object' || typeof value.seq !== 'number' || typeof value.type !== 'string') return undefined;
    return { step_id: null, attempt: 0, ts: '', data: {}, ...value } as RunEvent;
  } catch {
    return undefined;
  }
}

function statusOf(message: EventSourceMessage): string {
  try {
    const value = JSON.parse(message.data) as { status?: unknown } | null;
    return typeof value?.status === 'string' ? value.status : 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * Whether a failed connection is worth another: no answer, a 5xx, a dropped or silent stream. Refusals
 * (4xx) are final, and so is 501: a daemon without the stream route will not grow one while we wait.
 */
function retriable(err: unknown): boolean {
  if (err instanceof IdleStream) return true;
  if (err instanceof CliError) {
    if (err.kind === 'error') return err.status === undefined;
    return err.kind === 'server_error' && err.status !== undefined && err.status !== 501;
  }
  // A body cut off mid-read (a reset, the daemon stopping) surfaces as undici's TypeError (`terminated`).
  return err instanceof TypeError;
}

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Follows a run's live stream until its `end` frame: each run event once, in order (a frame whose
 * `seq` was already yielded, as a server re-sending after a reconnection may, is dropped). A stream
 * that ends without `end`, fails, or falls silent is reconnected with `last_event_id` set to the last
 * event yielded, after the server's `retry:` (doubling while nothing new arrives, at most 30 s);
 * `maxAttempts` reconnections in a row without a new event end it with an error. A refusal (404, 403, …)
 * is thrown at once. Parsing is eventsource-parser's (the WHATWG rules: comments, `retry:`, multi-line data).
 */
export async function* followRunEvents(client: ApiClient, runId: string, options: FollowOptions = {}): AsyncGenerator<StreamItem> {
  let after = options.after ?? 0;
  let retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  const idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  let failures = 0;
  for (;;) {
    const connection = new AbortController();
    let idle: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(new IdleStream(`no data for ${idleMs} ms`)), idleMs);
    };
    let reason: string;
    try {
      touch();
      const response = await client.open({
        method: 'GET',
        path: streamPath(runId),
        query: after > 0 ? { last_event_id: String(after) } : {},
        headers: { accept: 'text/event-stream' },
        signal: options.signal === undefined ? connection.signal : AbortSignal.any([connection.signal, options.signal]),
      });
      if (!/^text\/event-stream\b/i.test(response.headers.get('content-type') ?? '')) {
        await response.body?.cancel();
        throw notSvc(
          response.url,
          `${response.status} with ${response.headers.get('content-type') ?? 'no content type'}, not an event stream`,
        );
      }
      const messages: EventSourceMessage[] = [];
      const parser = createParser({ onEvent: (m) => messages.push(m), onRetry: (ms) => (retryMs = ms) });
      for await (const text of response.body!.pipeThrough(new TextDecoderStream())) {
        touch();
        parser.feed(text);
        for (const message of messages.splice(0)) {
          if (message.event === 'end') {
            yield { kind: 'end', status: statusOf(message) };
            return;
          }
          const event = runEventOf(message);
          if (event === undefined || event.seq <= after) continue;
          after = event.seq;
          failures = 0;
          yield { kind: 'event', event };
        }
      }
      reason = 'the stream ended before the run did';
    } catch (err) {
      if (options.signal?.aborted) return;
      const cause = connection.signal.aborted ? connection.signal.reason : err;
      if (!retriable(cause)) throw cause;
      reason = describe(cause);
    } finally {
      clearTimeout(idle);
      connection.abort();
    }
    failures += 1;
    if (failures > maxAttempts)
      throw new CliError('error', `lost the event stream of run ${runId} after ${maxAttempts} reconnections: ${reason}`);
    const delayMs = Math.min(retryMs * 2 ** (failures - 1), MAX_DELAY_MS);
    yield { kind: 'reconnecting', after, reason, delayMs };
    await sleep(delayMs, options.signal);
    if (options.signal?.aborted) return;
  }
}
