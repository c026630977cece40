import { associatedData, openBytes, type Sealed, sealBytes } from './aes-gcm.js';
import type { SecretsKey } from './encryption-key.js';
import type { KeyGuard } from './key-guard.js';

/** A sealed document and the key it was sealed under (stored beside it, so a wrong key is named, not guessed). */
export interface SealedDocument extends Sealed {
  readonly keyId: string;
}

/** Why a document could not be sealed or opened: the key is not verified yet, is another, or the bytes were changed. */
export class SealError extends Error {
  override name = 'SealError';
}

/**
 * Encryption at rest for other domains' documents (IaC state versions) under the secrets key, so the key is
 * loaded and checked against its canary once: AES-256-GCM, a fresh nonce each, and associated data the
 * caller names (`purpose` first, then the parts that bind the document to its place).
 */
export class DataSealer {
  constructor(
    private readonly key: SecretsKey,
    private readonly guard: KeyGuard,
  ) {}

  get keyId(): string {
    return this.key.id;
  }

  seal(plaintext: Buffer, purpose: string, ...parts: readonly string[]): SealedDocument {
    this.#refuseUnverified();
    return { ...sealBytes(this.key.key, plaintext, associatedData(purpose, ...parts)), keyId: this.key.id };
  }

  open(sealed: SealedDocument, purpose: string, ...parts: readonly string[]): Buffer {
    this.#refuseUnverified();
    if (sealed.keyId !== this.key.id) throw new SealError(`sealed under another key (${sealed.keyId})`);
    try {
      return openBytes(this.key.key, sealed, associatedData(purpose, ...parts));
    } catch {
      throw new SealError('does not decrypt (tampered, moved or corrupted)');
    }
  }

  #refuseUnverified(): void {
    if (!this.guard.verified) throw new SealError('the encryption key has not been verified against the database yet');
  }
}
