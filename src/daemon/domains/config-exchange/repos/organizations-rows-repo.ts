import type { Knex } from 'knex';

export interface OrganizationFields {
  readonly slug: string;
  readonly name: string;
  readonly description: string | null;
  readonly is_active: boolean;
  readonly is_shared: boolean;
  readonly settings: Record<string, unknown>;
}

/** The installation's organizations as configuration exchange reads and writes them, on the handle it is given. */
export class OrganizationsRowsRepo {
  async all(db: Knex): Promise<OrganizationFields[]> {
    return db('organizations').select('slug', 'name', 'description', 'is_active', 'is_shared', 'settings_json as settings');
  }

  async bySlug(db: Knex, slug: string): Promise<{ id: string; is_default: boolean } | undefined> {
    return db('organizations').where({ slug }).forUpdate().first('id', 'is_default');
  }

  /** Takes the shared mark off every other organization (there is at most one); answers those it took it from. */
  async clearShared(db: Knex, exceptSlug: string): Promise<{ id: string; slug: string }[]> {
    return db('organizations')
      .where({ is_shared: true })
      .whereNot({ slug: exceptSlug })
      .update({ is_shared: false, updated_at: db.fn.now() })
      .returning(['id', 'slug']);
  }

  /** Whether the slug was a deleted organization's (asked after the insert, as the orgs service does). */
  async slugRetired(db: Knex, slug: string): Promise<boolean> {
    return (await db('retired_org_slugs').where({ slug }).first('slug')) !== undefined;
  }

  async insert(db: Knex, fields: OrganizationFields): Promise<string> {
    const { settings, ...rest } = fields;
    const [row] = await db('organizations')
      .insert({ ...rest, settings_json: JSON.stringify(settings) })
      .returning('id');
    return (row as { id: string }).id;
  }

  async update(db: Knex, id: string, fields: OrganizationFields): Promise<void> {
    const { settings, ...rest } = fields;
    await db('organizations')
      .where({ id })
      .update({ ...rest, settings_json: JSON.stringify(settings), updated_at: db.fn.now() });
  }
}
