/**
 * How a call to the daemon is retried: a network error, 429, 502, 503 and 504 are tried again after an
 * exponentially growing, fully jittered delay (AWS's "full jitter": a uniform draw up to the cap, so many
 * workers failing together do not return together), within a number of attempts and a total time. Any
 * other answer is final: a 4xx says the request itself is wrong or no longer allowed (409 `run_not_held`
 * means the run is not ours), and repeating it cannot help.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  readonly attempts: number;
  /** No attempt starts after this long since the first. */
  readonly maxElapsedMs: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const CALLBACK_RETRY: RetryPolicy = { attempts: 10, maxElapsedMs: 60_000, baseDelayMs: 200, maxDelayMs: 5_000 };

/** The heartbeat is retried briefly: its own loop sends the next one anyway. */
export const HEARTBEAT_RETRY: RetryPolicy = { attempts: 3, maxElapsedMs: 5_000, baseDelayMs: 200, maxDelayMs: 1_000 };

const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

export function isRetriedStatus(status: number): boolean {
  return RETRIED_STATUSES.has(status);
}

/** The wait before attempt `attempt + 1` (attempt counts from 1), honouring a server's Retry-After within the cap. */
export function retryDelayMs(policy: RetryPolicy, attempt: number, retryAfter?: string | null, random: () => number = Math.random): number {
  const seconds = retryAfter == null ? NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, policy.maxDelayMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.floor(random() * ceiling);
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function abortableDelay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
