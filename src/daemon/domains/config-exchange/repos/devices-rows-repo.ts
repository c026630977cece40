import type { Knex } from 'knex';

export interface DeviceRowFields {
  readonly name: string;
  readonly hostname: string | null;
  readonly platform: string | null;
  readonly role: string | null;
  readonly site_id: string | null;
  readonly serial: string | null;
  readonly tags: readonly string[];
  readonly attributes: Record<string, unknown>;
}

export interface LocalDevice {
  readonly name: string;
  readonly hostname: string | null;
  readonly platform: string | null;
  readonly role: string | null;
  readonly site: string | null;
  readonly serial: string | null;
  readonly tags: string[];
  readonly attributes: Record<string, unknown>;
}

function written(fields: DeviceRowFields): Record<string, unknown> {
  const { attributes, tags, ...plain } = fields;
  return { ...plain, tags: JSON.stringify(tags), attributes_json: JSON.stringify(attributes) };
}

/**
 * An organization's live devices as configuration exchange reads and writes them, on the handle it is
 * given. Provider-sourced devices are left out: their provider's sync brings them on every installation.
 */
export class DevicesRowsRepo {
  async localLive(db: Knex, orgId: string): Promise<LocalDevice[]> {
    return db('devices as d')
      .leftJoin('sites as s', function () {
        this.on('s.id', 'd.site_id').andOnNull('s.deleted_at');
      })
      .where('d.org_id', orgId)
      .whereNull('d.deleted_at')
      .whereNull('d.provider_id')
      .select('d.name', 'd.hostname', 'd.platform', 'd.role', 's.name as site', 'd.serial', 'd.tags', 'd.attributes_json as attributes');
  }

  /** A live device of the organization by name, provider-sourced or not. */
  async liveByName(db: Knex, orgId: string, name: string): Promise<{ id: string } | undefined> {
    return db('devices').where({ org_id: orgId, name }).whereNull('deleted_at').forUpdate().first('id');
  }

  /** A live site of the organization by name. */
  async siteIdByName(db: Knex, orgId: string, name: string): Promise<string | undefined> {
    const row = await db('sites').where({ org_id: orgId, name }).whereNull('deleted_at').forShare().first('id');
    return (row as { id: string } | undefined)?.id;
  }

  async insert(db: Knex, orgId: string, fields: DeviceRowFields, by: string | null): Promise<string> {
    const [row] = await db('devices')
      .insert({ org_id: orgId, ...written(fields), created_by: by, updated_by: by })
      .returning('id');
    return (row as { id: string }).id;
  }

  async update(db: Knex, id: string, fields: DeviceRowFields, by: string | null): Promise<void> {
    await db('devices')
      .where({ id })
      .update({ ...written(fields), updated_by: by, updated_at: db.fn.now() });
  }

  async softDelete(db: Knex, id: string, by: string | null): Promise<void> {
    await db('devices').where({ id }).update({ deleted_at: db.fn.now(), deleted_by: by });
  }
}
