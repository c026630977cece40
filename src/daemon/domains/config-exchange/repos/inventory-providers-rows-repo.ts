import type { Knex } from 'knex';

/** Where a file lives, by names that are the same on every installation. */
export interface FilePlace {
  readonly repository: string;
  readonly folder: string;
  readonly name: string;
}

export interface ProviderRowFields {
  readonly type: string;
  readonly name: string;
  readonly description: string | null;
  readonly config_json: Record<string, unknown>;
  readonly credential_ref: string | null;
  readonly enabled: boolean;
}

/**
 * An organization's live inventory providers as configuration exchange reads and writes them, on the
 * handle it is given; sync state (watermark, last sync) is the installation's own and is not touched.
 */
export class InventoryProvidersRowsRepo {
  async live(db: Knex, orgId: string): Promise<(ProviderRowFields & { document_file: FilePlace | null })[]> {
    const rows = await db('inventory_providers as p')
      .leftJoin('files as f', db.raw(`f.id::text = p.config_json->>'document_file_id'`))
      .leftJoin('file_repositories as r', 'r.id', 'f.repository_id')
      .where('p.org_id', orgId)
      .whereNull('p.deleted_at')
      .select(
        'p.type',
        'p.name',
        'p.description',
        'p.config_json',
        'p.credential_ref',
        'p.enabled',
        'r.name as repository',
        'f.folder',
        'f.name as file',
      );
    return rows.map(({ repository, folder, file, ...row }) => ({
      ...row,
      document_file: repository ? { repository, folder, name: file } : null,
    }));
  }

  async isDefaultOrg(db: Knex, orgId: string): Promise<boolean> {
    const row = await db('organizations').where({ id: orgId }).first('is_default');
    return Boolean((row as { is_default?: boolean } | undefined)?.is_default);
  }

  /** The id of a file of the organization, or else of the shared organization, at `place`. */
  async fileAt(db: Knex, orgId: string, place: FilePlace): Promise<string | undefined> {
    const row = await db('files as f')
      .join('file_repositories as r', 'r.id', 'f.repository_id')
      .join('organizations as o', 'o.id', 'f.org_id')
      .where({ 'r.name': place.repository, 'f.folder': place.folder, 'f.name': place.name })
      .andWhere((b) => b.where('f.org_id', orgId).orWhere('o.is_shared', true))
      .orderByRaw('(f.org_id = ?) DESC', [orgId])
      .first('f.id');
    return (row as { id: string } | undefined)?.id;
  }

  async idOf(db: Knex, providerId: string): Promise<string> {
    const row = await db('inventory_providers').where({ provider_id: providerId }).whereNull('deleted_at').forUpdate().first('id');
    if (!row) throw new Error(`inventory provider ${providerId} vanished during the apply`);
    return (row as { id: string }).id;
  }

  async insert(db: Knex, orgId: string, providerId: string, fields: ProviderRowFields, by: string | null): Promise<string> {
    const [row] = await db('inventory_providers')
      .insert({
        org_id: orgId,
        provider_id: providerId,
        ...fields,
        config_json: JSON.stringify(fields.config_json),
        created_by: by,
        updated_by: by,
      })
      .returning('id');
    return (row as { id: string }).id;
  }

  async update(db: Knex, id: string, fields: ProviderRowFields, by: string | null): Promise<void> {
    await db('inventory_providers')
      .where({ id })
      .update({ ...fields, config_json: JSON.stringify(fields.config_json), updated_by: by, updated_at: db.fn.now() });
  }

  async softDelete(db: Knex, id: string, by: string | null): Promise<void> {
    await db('inventory_providers').where({ id }).update({ deleted_at: db.fn.now(), deleted_by: by });
  }
}
