import { Readable } from 'node:stream';
import { abortableDelay, isRetriedStatus, retryDelayMs, type RetryPolicy } from './retry.js';

/** An answer the daemon gave that is final (not retried, or out of retries): its status and problem code. */
export class DaemonAnswerError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly code: string | undefined,
    readonly body: unknown,
  ) {
    super(`${method} ${path} answered ${status}${code ? ` ${code}` : ''}`);
    this.name = 'DaemonAnswerError';
  }
}

/** The daemon could not be reached (or kept failing) within the retry policy. */
export class DaemonUnreachableError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(`${method} ${path}: daemon unreachable (${cause instanceof Error ? cause.message : String(cause)})`);
    this.name = 'DaemonUnreachableError';
  }
}

/** A body sent as it is rather than as JSON (an artifact's bytes). A stream can be sent once: its call is not retried. */
export interface RawBody {
  readonly data: Buffer | Readable;
  readonly contentType: string;
}

export interface CallOptions {
  readonly body?: unknown;
  readonly raw?: RawBody;
  readonly headers?: Readonly<Record<string, string>>;
  /** Aborts the call and any wait between attempts. */
  readonly signal?: AbortSignal;
  readonly retry?: RetryPolicy;
  /** Per attempt; the heartbeat's long poll sets its own. */
  readonly timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The worker's one door to the daemon: JSON over HTTP with `X-Internal-Token`, retried as the policy says.
 * Answers 2xx with the parsed body (undefined for an empty one); anything else final throws
 * DaemonAnswerError, and a daemon that stays unreachable DaemonUnreachableError.
 */
export class InternalHttp {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string | undefined,
    private readonly defaultRetry: RetryPolicy,
  ) {}

  async call<T = unknown>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const once = options.raw !== undefined && !Buffer.isBuffer(options.raw.data);
    const policy = once ? { ...(options.retry ?? this.defaultRetry), attempts: 1 } : (options.retry ?? this.defaultRetry);
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      let retryAfter: string | null = null;
      let failure: unknown;
      try {
        const response = await this.#once(method, path, options);
        const body = await readBody(response);
        if (response.ok) return body as T;
        if (!isRetriedStatus(response.status)) throw new DaemonAnswerError(method, path, response.status, problemCode(body), body);
        retryAfter = response.headers.get('retry-after');
        failure = new DaemonAnswerError(method, path, response.status, problemCode(body), body);
      } catch (error) {
        if (error instanceof DaemonAnswerError && !isRetriedStatus(error.status)) throw error;
        if (options.signal?.aborted) throw options.signal.reason;
        failure = failure ?? error;
      }
      const delay = retryDelayMs(policy, attempt, retryAfter);
      if (attempt >= policy.attempts || Date.now() - started + delay > policy.maxElapsedMs) {
        if (failure instanceof DaemonAnswerError) throw failure;
        throw new DaemonUnreachableError(method, path, failure);
      }
      await abortableDelay(delay, options.signal);
    }
  }

  async #once(method: string, path: string, options: CallOptions): Promise<Response> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (this.token !== undefined) headers['x-internal-token'] = this.token;
    if (options.raw !== undefined) {
      headers['content-type'] = options.raw.contentType;
      const data = options.raw.data;
      const body = Buffer.isBuffer(data) ? data : (Readable.toWeb(data) as ReadableStream<Uint8Array>);
      // A stream is sent as it is read (`duplex: 'half'`, as fetch requires for one).
      return fetch(this.baseUrl + path, { method, headers, body, signal, duplex: 'half' } as RequestInit);
    }
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    return fetch(this.baseUrl + path, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal,
    });
  }
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function problemCode(body: unknown): string | undefined {
  if (typeof body === 'object' && body !== null && typeof (body as { code?: unknown }).code === 'string')
    return (body as { code: string }).code;
  return undefined;
}
