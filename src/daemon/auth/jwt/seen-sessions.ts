/**
 * Remembers which login sessions this instance has seen, so first-request work (user provisioning,
 * group sync) runs once per session. A session is the token's `sid` (Keycloak keeps it across
 * refreshes; a new login gets a new one), or the token itself when it has none. Bounded; the least
 * recently seen are forgotten first, which at worst repeats the idempotent first-request work.
 */
export class SeenSessions {
  readonly #seen = new Map<string, true>();

  constructor(private readonly maxEntries = 50_000) {}

  /** True the first time `key` is offered (or after it was forgotten). */
  firstSight(key: string): boolean {
    if (this.#seen.delete(key)) {
      this.#seen.set(key, true);
      return false;
    }
    if (this.#seen.size >= this.maxEntries) this.#seen.delete(this.#seen.keys().next().value as string);
    this.#seen.set(key, true);
    return true;
  }
}
