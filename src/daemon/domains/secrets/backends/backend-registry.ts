import type { SecretsKey } from '../key/encryption-key.js';
import type { KeyGuard } from '../key/key-guard.js';
import { SecretBackendError } from '../secret-resolver.js';
import { BuiltinBackend } from './builtin-backend.js';
import type { BackendHealth, SecretBackend } from './secret-backend.js';
import type { SecretValuesRepo } from './secret-values-repo.js';

/** A backend row of a type this build cannot serve: every call fails as the store being unavailable would. */
class UnavailableBackend implements SecretBackend {
  constructor(private readonly type: string) {}

  #fail(): never {
    throw new SecretBackendError(`backends of type "${this.type}" are not available in this build`);
  }

  readFolder = async (): Promise<Record<string, string>> => this.#fail();
  writeFolder = async (): Promise<void> => this.#fail();
  deleteFolder = async (): Promise<void> => this.#fail();
  listItems = async (): Promise<string[]> => this.#fail();
  health = async (): Promise<BackendHealth> => ({ ok: false, detail: `backends of type "${this.type}" are not available in this build` });
}

/** Makes the implementation of a backend row. */
export class BackendRegistry {
  readonly #builtin = new Map<string, BuiltinBackend>();

  constructor(
    private readonly values: SecretValuesRepo,
    private readonly key: SecretsKey,
    private readonly guard: KeyGuard,
  ) {}

  for(row: { readonly id: string; readonly type: string }): SecretBackend {
    if (row.type !== 'builtin') return new UnavailableBackend(row.type);
    let backend = this.#builtin.get(row.id);
    if (!backend) {
      backend = new BuiltinBackend(row.id, this.values, this.key, this.guard);
      this.#builtin.set(row.id, backend);
    }
    return backend;
  }
}
