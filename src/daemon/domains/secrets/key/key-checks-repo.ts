import type { Knex } from 'knex';

export interface KeyCheckRow {
  readonly scope: string;
  readonly key_id: string;
  readonly canary_nonce: Buffer;
  readonly canary_ciphertext: Buffer;
  readonly canary_tag: Buffer;
}

/** The `secret_key_checks` table, and the one question about stored values the check asks. */
export class KeyChecksRepo {
  constructor(private readonly knex: Knex) {}

  async find(scope: string): Promise<KeyCheckRow | undefined> {
    return this.knex('secret_key_checks').where({ scope }).first('scope', 'key_id', 'canary_nonce', 'canary_ciphertext', 'canary_tag');
  }

  /** Inserts unless a row exists for the scope (another instance starting at the same time may have written it). */
  async insertIfAbsent(row: KeyCheckRow): Promise<void> {
    await this.knex('secret_key_checks').insert(row).onConflict('scope').ignore();
  }

  /** Whether any stored value was encrypted under another key than `keyId`. */
  async valuesUnderOtherKey(keyId: string): Promise<boolean> {
    return (await this.knex('secret_values').whereNot({ key_id: keyId }).first('id')) !== undefined;
  }
}
