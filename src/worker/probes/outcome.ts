import { abortableDelay } from '../retry.js';

/** What one check of one target found. A failure has a code (`connection_refused`, `timeout`, …) and a message. */
export interface CheckOutcome {
  readonly ok: boolean;
  /** From the start of the attempt to its answer; null when nothing answered. */
  readonly latencyMs: number | null;
  readonly code?: string;
  readonly message?: string;
  /** What the check read (an HTTP status, resolved values, …). */
  readonly details?: Readonly<Record<string, unknown>>;
}

export function passed(latencyMs: number, details?: Record<string, unknown>): CheckOutcome {
  return { ok: true, latencyMs, ...(details ? { details } : {}) };
}

export function failed(code: string, message: string, latencyMs: number | null = null, details?: Record<string, unknown>): CheckOutcome {
  return { ok: false, latencyMs, code, message, ...(details ? { details } : {}) };
}

/** How a network error reads as a check failure code. */
export function networkFailure(error: unknown, started: number): CheckOutcome {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const elapsed = elapsedSince(started);
  switch (code) {
    case 'ECONNREFUSED':
      // The refusal came back from the host: how long it took is its round trip.
      return failed('connection_refused', message, elapsed);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return failed('name_not_resolved', message);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return failed('host_unreachable', message);
    case 'ETIMEDOUT':
    case 'ABORT_ERR':
    case 'ETIMEOUT':
      return failed('timeout', `no answer within the timeout (${elapsed} ms)`);
    default:
      return failed('connection_failed', message);
  }
}

/**
 * The attempt's own signal: aborted by the run's (a cancel or stop, whose reason the caller rethrows) or
 * by the per-attempt timeout.
 */
export function attemptSignal(runSignal: AbortSignal, timeoutMs: number): AbortSignal {
  return AbortSignal.any([runSignal, AbortSignal.timeout(timeoutMs)]);
}

/**
 * Runs `check` up to `attempts` times until one passes, a second apart, and answers the last outcome with
 * the number of attempts made. The run's abort ends it at once (rethrowing its reason).
 */
export async function withAttempts(
  attempts: number,
  signal: AbortSignal,
  check: () => Promise<CheckOutcome>,
): Promise<CheckOutcome & { readonly attempts: number }> {
  for (let attempt = 1; ; attempt++) {
    const outcome = await check();
    if (signal.aborted) throw signal.reason;
    if (outcome.ok || attempt >= attempts) return { ...outcome, attempts: attempt };
    await abortableDelay(ATTEMPT_PAUSE_MS, signal);
  }
}

const ATTEMPT_PAUSE_MS = 1000;

export function elapsedSince(started: number): number {
  return Math.round((performance.now() - started) * 10) / 10;
}
