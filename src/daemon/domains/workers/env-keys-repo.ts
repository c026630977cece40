import type { Knex } from 'knex';

export interface EnvKeyRow {
  readonly worker_id: string;
  readonly algorithm: string;
  readonly key_id: string;
  readonly public_key_jwk: Record<string, unknown>;
  readonly created_at: Date | string;
  readonly expires_at: Date | string | null;
}

export interface EnvKeyInput {
  readonly workerId: string;
  readonly algorithm: string;
  readonly keyId: string;
  readonly publicKeyJwk: Record<string, unknown>;
  readonly expiresAt: string | null;
}

/** The public key each worker registers for values sealed to it (`worker_env_keys`, one per worker). */
export class EnvKeysRepo {
  constructor(private readonly knex: Knex) {}

  /** Stores the worker's key, replacing any it had; says whether it had none. */
  async put(key: EnvKeyInput): Promise<{ row: EnvKeyRow; created: boolean }> {
    const result = await this.knex.raw<{ rows: (EnvKeyRow & { created: boolean })[] }>(
      `INSERT INTO worker_env_keys (worker_id, algorithm, public_key_jwk, key_id, created_at, expires_at)
       VALUES (?, ?, ?::jsonb, ?, now(), ?)
       ON CONFLICT (worker_id) DO UPDATE SET algorithm = EXCLUDED.algorithm, public_key_jwk = EXCLUDED.public_key_jwk,
         key_id = EXCLUDED.key_id, created_at = now(), expires_at = EXCLUDED.expires_at
       RETURNING worker_id, algorithm, public_key_jwk, key_id, created_at, expires_at, (xmax = 0) AS created`,
      [key.workerId, key.algorithm, JSON.stringify(key.publicKeyJwk), key.keyId, key.expiresAt],
    );
    const { created, ...row } = result.rows[0]!;
    return { row, created };
  }

  /** Removes the worker's key; false when it had none. */
  async remove(workerId: string): Promise<boolean> {
    const removed = await this.knex('worker_env_keys').where({ worker_id: workerId }).delete().returning('worker_id');
    return removed.length > 0;
  }
}
