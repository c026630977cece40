import type { HealthCheck, HealthStatus, PlatformHealthAnswer } from '../../../shared/api/platform-health.js';

/** What a probe finds: a status and what it saw. */
export interface ProbeResult {
  readonly status: HealthStatus;
  readonly detail: Record<string, unknown>;
}

/** One named check of the platform; `signal` aborts when the report's time is up. */
export interface HealthProbe {
  readonly name: string;
  run(signal: AbortSignal): Promise<ProbeResult>;
}

export interface HealthRunnerOptions {
  /** The whole report's time limit: a probe still running then is `down`, reason `timeout`. */
  readonly limitMs: number;
  /** How long a report is served again before the checks run anew. */
  readonly cacheMs: number;
}

const RANK: Record<HealthStatus, number> = { ok: 0, not_configured: 0, degraded: 1, down: 2 };

/**
 * Runs every probe at once under one time limit and answers whatever they found by then, so the route
 * never waits on the slowest dependency. A report is kept for a few seconds and callers arriving while
 * one is being made share it: a monitoring system polling every instance, or many admins' dashboards,
 * cost the dependencies (the IdP, S3 endpoints, the registry) one round of checks, not one each.
 */
export class HealthRunner {
  #last: { at: number; answer: PlatformHealthAnswer } | undefined;
  #pending: Promise<PlatformHealthAnswer> | undefined;

  constructor(
    private readonly probes: readonly HealthProbe[],
    private readonly options: HealthRunnerOptions,
  ) {}

  async report(): Promise<PlatformHealthAnswer> {
    const last = this.#last;
    if (last && Date.now() - last.at < this.options.cacheMs) return { ...last.answer, cached: true };
    this.#pending ??= this.#run().finally(() => (this.#pending = undefined));
    return this.#pending;
  }

  async #run(): Promise<PlatformHealthAnswer> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeUp = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.options.limitMs);
    });
    const checkedAt = new Date();
    try {
      const checks = await Promise.all(this.probes.map((probe) => this.#check(probe, controller.signal, timeUp)));
      const worst = checks.reduce((w, c) => (RANK[c.status] > RANK[w] ? c.status : w), 'ok' as HealthStatus);
      const answer: PlatformHealthAnswer = {
        status: worst === 'not_configured' ? 'ok' : worst,
        checked_at: checkedAt.toISOString(),
        cached: false,
        checks,
      };
      this.#last = { at: Date.now(), answer };
      return answer;
    } finally {
      clearTimeout(timer);
      controller.abort();
    }
  }

  async #check(probe: HealthProbe, signal: AbortSignal, timeUp: Promise<'timeout'>): Promise<HealthCheck> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const running = probe.run(signal).then(
      (result) => ({ name: probe.name, status: result.status, latency_ms: latency(), detail: result.detail }),
      (error: unknown) => ({ name: probe.name, status: 'down' as const, latency_ms: latency(), detail: { reason: reasonOf(error) } }),
    );
    const outcome = await Promise.race([running, timeUp]);
    if (outcome === 'timeout') return { name: probe.name, status: 'down', latency_ms: latency(), detail: { reason: 'timeout' } };
    return outcome;
  }
}

/** A failed probe's reason: a problem's code, else `error` (the message may carry addresses or credentials). */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[a-z_]+$/.test(code) ? code : 'error';
}
