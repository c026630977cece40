import type { CheckOutcome } from '../probes/outcome.js';

/** What a connectivity monitor's samples add up to: its summary when it closes. */
export class SeriesStats {
  #samples = 0;
  #ok = 0;
  #latencySum = 0;
  #latencyMin = Infinity;
  #latencyMax = 0;
  readonly #failures = new Map<string, number>();

  add(outcome: CheckOutcome): void {
    this.#samples += 1;
    if (outcome.ok) {
      this.#ok += 1;
      const latency = outcome.latencyMs ?? 0;
      this.#latencySum += latency;
      this.#latencyMin = Math.min(this.#latencyMin, latency);
      this.#latencyMax = Math.max(this.#latencyMax, latency);
    } else {
      const code = outcome.code ?? 'failed';
      this.#failures.set(code, (this.#failures.get(code) ?? 0) + 1);
    }
  }

  get samples(): number {
    return this.#samples;
  }

  summary(): Record<string, unknown> {
    const round = (n: number) => Math.round(n * 10) / 10;
    return {
      samples: this.#samples,
      ok: this.#ok,
      failed: this.#samples - this.#ok,
      availability_pct: this.#samples === 0 ? null : round((100 * this.#ok) / this.#samples),
      latency_ms:
        this.#ok === 0 ? null : { min: round(this.#latencyMin), avg: round(this.#latencySum / this.#ok), max: round(this.#latencyMax) },
      failures: Object.fromEntries(this.#failures),
    };
  }
}
