import type { Knex } from 'knex';

export interface OrgRow {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly description: string | null;
  readonly is_active: boolean;
  readonly is_default: boolean;
  readonly created_at: Date;
  readonly updated_at: Date;
  readonly settings_json: Record<string, unknown>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

export class OrgsRepo {
  constructor(private readonly knex: Knex) {}

  /** An organization by id or slug (the `{org_ref}` of the catalogue accepts both). */
  async findByRef(ref: string): Promise<OrgRow | undefined> {
    return this.knex('organizations')
      .where(isUuid(ref) ? { id: ref } : { slug: ref })
      .first();
  }

  async findDefault(): Promise<OrgRow | undefined> {
    return this.knex('organizations').where({ is_default: true }).first();
  }
}
