import { randomBytes } from 'node:crypto';
import { splitSecretLocation } from '../../../../shared/secrets/reference.js';
import { associatedData, open, seal } from '../key/aes-gcm.js';
import type { SecretsKey } from '../key/encryption-key.js';
import type { KeyGuard } from '../key/key-guard.js';
import { SecretBackendError } from '../secret-resolver.js';
import type { BackendCall, BackendHealth, SecretBackend, WriteMode } from './secret-backend.js';
import type { SecretValueRow, SecretValuesRepo } from './secret-values-repo.js';

/**
 * The built-in backend: values in the service's own database, each encrypted with AES-256-GCM under the
 * configured key, a fresh nonce per value, and associated data naming the backend, the location and the
 * key name, so a ciphertext moved to another row (or another backend) no longer decrypts.
 */
export class BuiltinBackend implements SecretBackend {
  constructor(
    private readonly backendId: string,
    private readonly repo: SecretValuesRepo,
    private readonly key: SecretsKey,
    private readonly guard: KeyGuard,
  ) {}

  async readFolder(location: string, call: BackendCall = {}): Promise<Record<string, string>> {
    this.#ready();
    const rows = await this.#store(() => this.repo.readFolder(this.backendId, location, call.tx));
    const folder: Record<string, string> = {};
    for (const row of rows) folder[row.key_name] = this.#decrypt(location, row);
    return folder;
  }

  async writeFolder(location: string, values: Readonly<Record<string, string>>, mode: WriteMode, call: BackendCall = {}): Promise<void> {
    this.#ready();
    const place = splitSecretLocation(location);
    if (!place) throw new SecretBackendError('not a secret location of an organization');
    const rows = Object.entries(values).map(([keyName, value]) => {
      const sealed = seal(this.key.key, value, this.#aad(location, keyName));
      return { key_name: keyName, nonce: sealed.nonce, ciphertext: sealed.ciphertext, auth_tag: sealed.tag, key_id: this.key.id };
    });
    const written = await this.#store(() =>
      this.repo.writeFolder(this.backendId, location, place.orgSlug, rows, mode === 'replace', call.tx),
    );
    if (!written) throw new SecretBackendError('the location names no organization');
  }

  async deleteFolder(location: string, call: BackendCall = {}): Promise<void> {
    this.#ready();
    await this.#store(() => this.repo.deleteFolder(this.backendId, location, call.tx));
  }

  async listItems(prefix: string, call: BackendCall = {}): Promise<string[]> {
    return this.#store(() => this.repo.locations(this.backendId, prefix, call.tx));
  }

  async health(): Promise<BackendHealth> {
    if (!this.guard.verified) return { ok: false, detail: 'the encryption key has not been verified against the database yet' };
    const probe = randomBytes(16).toString('hex');
    const aad = this.#aad('health-check', 'probe');
    try {
      if (open(this.key.key, seal(this.key.key, probe, aad), aad) !== probe)
        return { ok: false, detail: 'encryption round trip returned another value' };
    } catch {
      return { ok: false, detail: 'encryption round trip failed' };
    }
    let count: number;
    try {
      count = await this.repo.count(this.backendId);
    } catch {
      return { ok: false, detail: 'the value store (database) did not answer' };
    }
    return { ok: true, detail: `encryption round trip and store read succeeded (key ${this.key.id}, ${count} stored value(s))` };
  }

  #aad(location: string, keyName: string): Buffer {
    return associatedData('svc-secret-value/v1', this.backendId, location, keyName);
  }

  #decrypt(location: string, row: SecretValueRow): string {
    if (row.key_id !== this.key.id) throw new SecretBackendError(`a value of the folder was encrypted under another key (${row.key_id})`);
    try {
      return open(this.key.key, { nonce: row.nonce, ciphertext: row.ciphertext, tag: row.auth_tag }, this.#aad(location, row.key_name));
    } catch {
      throw new SecretBackendError(`the value of key "${row.key_name}" does not decrypt (tampered, moved or corrupted)`);
    }
  }

  #ready(): void {
    if (!this.guard.verified) throw new SecretBackendError('the encryption key has not been verified against the database yet');
  }

  async #store<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof SecretBackendError) throw error;
      throw new SecretBackendError('the value store (database) failed', { cause: error });
    }
  }
}
