const TOUCH_INTERVAL_MS = 1000;
const CAP = 100_000;

/**
 * Whether an accepted trigger also writes its endpoint's `last_triggered_at`: at most once a second per
 * endpoint on this instance, so a busy endpoint's row is not rewritten (and locked) by every trigger.
 */
export class TouchThrottle {
  /** Endpoint id -> when this instance last wrote its `last_triggered_at` (monotonic ms). */
  readonly #touched = new Map<string, number>();

  due(endpointId: string): boolean {
    const last = this.#touched.get(endpointId);
    if (last !== undefined && performance.now() - last < TOUCH_INTERVAL_MS) return false;
    if (last === undefined && this.#touched.size >= CAP) this.#touched.delete(this.#touched.keys().next().value!);
    return true;
  }

  /** The accepted delivery wrote it. */
  touched(endpointId: string): void {
    this.#touched.set(endpointId, performance.now());
  }

  forget(endpointId: string): void {
    this.#touched.delete(endpointId);
  }
}
