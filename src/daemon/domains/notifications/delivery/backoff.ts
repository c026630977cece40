export interface BackoffSettings {
  /** SERVICE_NOTIFICATION_RETRY_BASE_SECONDS: the wait after the first failure, doubled after each. */
  readonly baseSeconds: number;
  /** SERVICE_NOTIFICATION_RETRY_MAX_SECONDS: the longest wait. */
  readonly maxSeconds: number;
}

/**
 * The wait before attempt `attempt + 1` after `attempt` failed: exponential (`base * 2^(attempt-1)`, at most
 * `max`) with "equal jitter" (half of it fixed, half drawn from `random`, in [0, 1)), so senders that
 * failed together do not retry together, and no retry comes sooner than half its step.
 */
export function backoffMs(attempt: number, settings: BackoffSettings, random: () => number): number {
  const step = Math.min(settings.maxSeconds, settings.baseSeconds * 2 ** Math.max(0, attempt - 1)) * 1000;
  return Math.round(step / 2 + (step / 2) * random());
}
