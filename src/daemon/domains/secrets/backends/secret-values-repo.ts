import type { Knex } from 'knex';
import type { BackendTx } from './secret-backend.js';
import { prepared } from '../../../db/prepared.js';

export interface SecretValueRow {
  readonly key_name: string;
  readonly nonce: Buffer;
  readonly ciphertext: Buffer;
  readonly auth_tag: Buffer;
  readonly key_id: string;
}

export interface SecretValueWrite {
  readonly key_name: string;
  readonly nonce: Buffer;
  readonly ciphertext: Buffer;
  readonly auth_tag: Buffer;
  readonly key_id: string;
}

/** bytea comes back as a Buffer from pg and as a Uint8Array from PGlite. */
function bytes(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** The built-in backend's table, `secret_values`: ciphertexts only. */
export class SecretValuesRepo {
  constructor(private readonly knex: Knex) {}

  #db(tx: BackendTx | undefined): Knex {
    return tx ?? this.knex;
  }

  async readFolder(backendId: string, location: string, tx?: BackendTx): Promise<SecretValueRow[]> {
    const rows: SecretValueRow[] = await this.#db(tx)('secret_values')
      .where({ backend_id: backendId, location })
      .orderBy('key_name')
      .select('key_name', 'nonce', 'ciphertext', 'auth_tag', 'key_id')
      .options(prepared('svc_secret_values_read'));
    return rows.map((r) => ({ ...r, nonce: bytes(r.nonce), ciphertext: bytes(r.ciphertext), auth_tag: bytes(r.auth_tag) }));
  }

  /**
   * Writes the given keys of one folder (insert or overwrite) and, with `replace`, removes the others.
   * The folder's organization is found from the slug in the location, so its values go when it is deleted.
   */
  async writeFolder(
    backendId: string,
    location: string,
    orgSlug: string,
    rows: readonly SecretValueWrite[],
    replace: boolean,
    tx?: BackendTx,
  ): Promise<boolean> {
    const db = this.#db(tx);
    const org: { id: string } | undefined = await db('organizations').where({ slug: orgSlug }).first('id');
    if (!org) return false;
    if (replace) {
      await db('secret_values')
        .where({ backend_id: backendId, location })
        .whereNotIn(
          'key_name',
          rows.map((r) => r.key_name),
        )
        .delete();
    }
    if (rows.length > 0) {
      await db('secret_values')
        .insert(rows.map((r) => ({ ...r, backend_id: backendId, org_id: org.id, location })))
        .onConflict(['backend_id', 'location', 'key_name'])
        .merge(['nonce', 'ciphertext', 'auth_tag', 'key_id', 'updated_at']);
    }
    return true;
  }

  async deleteFolder(backendId: string, location: string, tx?: BackendTx): Promise<void> {
    await this.#db(tx)('secret_values').where({ backend_id: backendId, location }).delete();
  }

  /** Distinct locations starting with `prefix` (compared as text: no LIKE, whose `_` would match anything). */
  async locations(backendId: string, prefix: string, tx?: BackendTx): Promise<string[]> {
    const rows: { location: string }[] = await this.#db(tx)('secret_values')
      .where({ backend_id: backendId })
      .andWhereRaw('left(location, ?) = ?', [prefix.length, prefix])
      .distinct('location')
      .orderBy('location');
    return rows.map((r) => r.location);
  }

  /** A cheap read proving the table answers. */
  async count(backendId: string): Promise<number> {
    const [row] = await this.knex('secret_values').where({ backend_id: backendId }).count<{ n: string | number }[]>('* as n');
    return Number(row?.n ?? 0);
  }
}
