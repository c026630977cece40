import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';

interface Entry {
  readonly payload: AdapterPayload;
  readonly expiresAt: number;
}

/**
 * oidc-provider's own memory adapter keeps one store per process; this one belongs to a single dev
 * provider, so two of them in one test process do not see each other's sessions, and the store
 * outlives the Provider object that key rotation replaces.
 */
export class MemoryStore {
  readonly #entries = new Map<string, Entry>();
  readonly #indexes = new Map<string, string>();
  readonly #grants = new Map<string, Set<string>>();

  readonly factory: AdapterFactory = (model: string) => this.#adapter(model);

  #get(key: string): AdapterPayload | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  #adapter(model: string): Adapter {
    const keyOf = (id: string): string => `${model}:${id}`;
    return {
      upsert: async (id, payload, expiresIn) => {
        const key = keyOf(id);
        const expiresAt = Date.now() + expiresIn * 1000;
        this.#entries.set(key, { payload: { ...payload }, expiresAt });
        if (model === 'Session' && payload.uid !== undefined) this.#indexes.set(`sessionUid:${payload.uid}`, id);
        if (payload.userCode !== undefined) this.#indexes.set(`userCode:${payload.userCode}`, id);
        if (payload.grantId !== undefined) {
          const keys = this.#grants.get(payload.grantId) ?? new Set<string>();
          this.#grants.set(payload.grantId, keys.add(key));
        }
      },
      find: async (id) => this.#get(keyOf(id)),
      findByUid: async (uid) => {
        const id = this.#indexes.get(`sessionUid:${uid}`);
        return id === undefined ? undefined : this.#get(keyOf(id));
      },
      findByUserCode: async (userCode) => {
        const id = this.#indexes.get(`userCode:${userCode}`);
        return id === undefined ? undefined : this.#get(keyOf(id));
      },
      consume: async (id) => {
        const payload = this.#get(keyOf(id));
        if (payload !== undefined) payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => {
        this.#entries.delete(keyOf(id));
      },
      revokeByGrantId: async (grantId) => {
        for (const key of this.#grants.get(grantId) ?? []) this.#entries.delete(key);
        this.#grants.delete(grantId);
      },
    };
  }
}
