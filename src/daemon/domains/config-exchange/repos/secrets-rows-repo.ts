import type { Knex } from 'knex';
import { secretLocation } from '../../../../shared/secrets/reference.js';

export interface SecretRow {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly backend_id: string;
  readonly backend_scheme: string;
  readonly path: string;
  readonly declared_keys: string[];
  /** Names of the keys the built-in store holds for the secret's folder (values are never read). */
  readonly stored_keys: string[];
}

/**
 * An organization's secrets as configuration exchange reads and writes them: metadata and key NAMES.
 * Nothing here selects a value column of `secret_values`; removing keys deletes their rows unread.
 */
export class SecretsRowsRepo {
  async ofOrg(db: Knex, org: { id: string; slug: string }): Promise<SecretRow[]> {
    const rows = (await db('secrets as s')
      .join('secret_backends as b', 'b.id', 's.backend_id')
      .where('s.org_id', org.id)
      .select('s.id', 's.name', 's.description', 's.backend_id', 'b.scheme as backend_scheme', 's.path', 's.declared_keys')) as Omit<
      SecretRow,
      'stored_keys'
    >[];
    const stored = (await db('secret_values').where({ org_id: org.id }).select('backend_id', 'location', 'key_name')) as {
      backend_id: string;
      location: string;
      key_name: string;
    }[];
    return rows.map((row) => {
      const location = secretLocation(org.slug, row.path);
      const keys = stored.filter((s) => s.backend_id === row.backend_id && s.location === location).map((s) => s.key_name);
      return { ...row, stored_keys: keys };
    });
  }

  async find(db: Knex, org: { id: string; slug: string }, name: string): Promise<SecretRow> {
    const row = (await this.ofOrg(db, org)).find((r) => r.name === name);
    if (!row) throw new Error(`secret ${name} vanished during the apply`);
    return row;
  }

  async backendByScheme(db: Knex, scheme: string): Promise<{ id: string; type: string } | undefined> {
    return db('secret_backends').where({ scheme }).first('id', 'type');
  }

  async folderTaken(db: Knex, orgId: string, backendId: string, path: string): Promise<boolean> {
    return (await db('secrets').where({ org_id: orgId, backend_id: backendId, path }).first('id')) !== undefined;
  }

  async insert(
    db: Knex,
    orgId: string,
    row: { name: string; description: string | null; backend_id: string; path: string; declared_keys: string[] },
    by: string | null,
  ): Promise<string> {
    const [inserted] = await db('secrets')
      .insert({ org_id: orgId, ...row, declared_keys: JSON.stringify(row.declared_keys), created_by: by, updated_by: by })
      .returning('id');
    return (inserted as { id: string }).id;
  }

  async update(db: Knex, id: string, change: { description: string | null; declared_keys: string[] }, by: string | null): Promise<void> {
    await db('secrets')
      .where({ id })
      .update({
        description: change.description,
        declared_keys: JSON.stringify(change.declared_keys),
        updated_by: by,
        updated_at: db.fn.now(),
      });
  }

  /** Deletes stored keys of a folder (all of them when `keys` is undefined), without reading them. */
  async deleteStoredKeys(db: Knex, backendId: string, location: string, keys?: readonly string[]): Promise<void> {
    const query = db('secret_values').where({ backend_id: backendId, location });
    await (keys ? query.whereIn('key_name', keys) : query).delete();
  }

  async delete(db: Knex, id: string): Promise<void> {
    await db('secrets').where({ id }).delete();
  }
}
