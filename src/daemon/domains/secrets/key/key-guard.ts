import { ConfigError } from '../../../config/config.js';
import type { Logger } from '../../../logging/logger.js';
import { associatedData, open, seal } from './aes-gcm.js';
import { KEY_SETTING, type SecretsKey } from './encryption-key.js';
import type { KeyChecksRepo } from './key-checks-repo.js';

const SCOPE = 'builtin';
const CANARY = 'svc secrets key check';
const RETRY_MS = 2000;

/**
 * Proves, before any value is read or written, that the configured key is the one the database's values
 * were encrypted with: the first start records the key's fingerprint and an encrypted canary, every later
 * start compares and decrypts them. A wrong key is a configuration error (start-up refused), not a
 * string of failed reads later on.
 */
export class KeyGuard {
  #verified = false;

  constructor(
    private readonly repo: KeyChecksRepo,
    private readonly key: SecretsKey,
    private readonly log: Logger,
  ) {}

  /** True once the key has been checked against the database. Until then the built-in backend refuses. */
  get verified(): boolean {
    return this.#verified;
  }

  get keyId(): string {
    return this.key.id;
  }

  /** Throws ConfigError when the key does not match; any other error means the check could not run. */
  async verify(): Promise<void> {
    if (this.#verified) return;
    const aad = associatedData('svc-key-check', SCOPE);
    let row = await this.repo.find(SCOPE);
    if (!row) {
      // A database holding values but no check row (restored partially, row deleted by hand) still proves the key.
      if (await this.repo.valuesUnderOtherKey(this.key.id)) throw mismatch();
      const canary = seal(this.key.key, CANARY, aad);
      await this.repo.insertIfAbsent({
        scope: SCOPE,
        key_id: this.key.id,
        canary_nonce: canary.nonce,
        canary_ciphertext: canary.ciphertext,
        canary_tag: canary.tag,
      });
      row = await this.repo.find(SCOPE);
      if (!row) throw new Error('the secrets key check row vanished after it was written');
      this.log.info({ key_id: this.key.id }, 'recorded the secrets encryption key check');
    }
    if (row.key_id !== this.key.id) throw mismatch();
    let plain: string;
    try {
      plain = open(this.key.key, { nonce: row.canary_nonce, ciphertext: row.canary_ciphertext, tag: row.canary_tag }, aad);
    } catch {
      throw mismatch();
    }
    if (plain !== CANARY) throw mismatch();
    this.#verified = true;
  }

  /**
   * The check for a daemon whose database came up after start-up: retried while the database does not
   * answer; `onMismatch` is called when the key is wrong.
   */
  verifyInBackground(onMismatch: (error: ConfigError) => void): void {
    const attempt = () => {
      this.verify().then(
        () => this.log.info({ key_id: this.key.id }, 'secrets encryption key verified'),
        (error: unknown) => {
          if (error instanceof ConfigError) return onMismatch(error);
          this.log.warn({ err: error }, 'could not check the secrets encryption key yet; retrying');
          setTimeout(attempt, RETRY_MS).unref();
        },
      );
    };
    attempt();
  }
}

function mismatch(): ConfigError {
  return new ConfigError([
    {
      variable: KEY_SETTING,
      message: 'does not match the key the stored secrets were encrypted with (set the original key, or restore the key file)',
    },
  ]);
}
