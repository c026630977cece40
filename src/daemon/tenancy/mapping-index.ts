import type { CandidateMapping } from '../../shared/tenancy/sync-plan.js';
import type { IdpMappingsRepo } from './idp-mappings-repo.js';
import type { Logger } from '../logging/logger.js';

/** claim -> value -> the active mappings of active organizations for that exact value. */
type Snapshot = ReadonlyMap<string, ReadonlyMap<string, readonly CandidateMapping[]>>;

/**
 * The active mappings of active organizations, in process: a login's claim values become map lookups
 * instead of a query per login. Lookups read an immutable snapshot; a reload builds a new one and swaps
 * it in. Until the first reload succeeds, lookups ask the database (never an empty index), so a login
 * right after start-up, or while the database was down at start, is still matched correctly.
 */
export class MappingIndex {
  #snapshot: Snapshot | undefined;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  constructor(
    private readonly repo: IdpMappingsRepo,
    private readonly log: Logger,
  ) {}

  get loaded(): boolean {
    return this.#snapshot !== undefined;
  }

  /** What `IdpMappingsRepo.activeMatching` answers, from the snapshot once there is one. */
  async match(claim: string, values: readonly string[]): Promise<CandidateMapping[]> {
    const snapshot = this.#snapshot;
    if (!snapshot) return this.repo.activeMatching(claim, values);
    const byValue = snapshot.get(claim);
    if (!byValue) return [];
    const matched: CandidateMapping[] = [];
    for (const value of new Set(values)) matched.push(...(byValue.get(value) ?? []));
    return matched;
  }

  /**
   * Reloads, and resolves once a reload that started after this call has finished: a write that has
   * committed is then visible. Reloads never overlap (an older read finishing last would win); calls
   * arriving during one share a single reload after it. Never rejects: a failed reload keeps the last
   * snapshot and is logged.
   */
  refresh(): Promise<void> {
    if (this.#next) return this.#next;
    if (!this.#running) return this.#start();
    this.#next = this.#running.then(() => {
      this.#next = undefined;
      return this.#start();
    });
    return this.#next;
  }

  /** Resolves when no reload is running or queued. */
  async settled(): Promise<void> {
    while (this.#next ?? this.#running) await (this.#next ?? this.#running);
  }

  #start(): Promise<void> {
    const run: Promise<void> = this.#reload()
      .catch((error: unknown) => this.log.warn({ err: error }, 'IdP mappings not refreshed; keeping the last known'))
      .finally(() => {
        if (this.#running === run) this.#running = undefined;
      });
    this.#running = run;
    return run;
  }

  async #reload(): Promise<void> {
    const byClaim = new Map<string, Map<string, CandidateMapping[]>>();
    for (const mapping of await this.repo.allActive()) {
      let byValue = byClaim.get(mapping.claim);
      if (!byValue) byClaim.set(mapping.claim, (byValue = new Map()));
      const same = byValue.get(mapping.value);
      if (same) same.push(mapping);
      else byValue.set(mapping.value, [mapping]);
    }
    this.#snapshot = byClaim;
  }
}
