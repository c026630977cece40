import type { Knex } from 'knex';
import { isUuid } from '../../shared/ids.js';

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

/** A knex transaction as services hand it back to repositories (services never use knex themselves). */
export type Tx = Knex.Transaction;

/** An organization with every column the organizations API shows. */
export interface OrgRecord extends OrgRow {
  readonly is_shared: boolean;
}

/** An organization as a caller sees it in the list, with the caller's own membership (if any). */
export interface VisibleOrgRow extends OrgRecord {
  readonly role: string | null;
  readonly source: 'manual' | 'idp' | null;
}

export interface OrgListFilter {
  /** The caller's subject: its membership (role, source) is joined onto each row. */
  readonly sub: string;
  readonly includeInactive: boolean;
  /** Only organizations the caller is a member of, plus the shared one. */
  readonly memberOrSharedOnly: boolean;
  /** Only this organization, plus the shared one (a personal access token acts in one organization). */
  readonly restrictTo?: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

export interface OrgChanges {
  readonly name?: string;
  readonly description?: string | null;
  readonly is_active?: boolean;
  readonly is_shared?: boolean;
  readonly settings_json?: Record<string, unknown>;
}

/** jsonb comes back parsed from pg; parse it here too should a driver hand back text. */
function withSettings<T>(row: Record<string, unknown>): T {
  const value = row.settings_json;
  return { ...row, settings_json: typeof value === 'string' ? (JSON.parse(value) as Record<string, unknown>) : (value ?? {}) } as T;
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

  // --- The organizations API (`org:*`, `org_member:*`) ---

  async transaction<T>(work: (trx: Tx) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  async findRecordByRef(ref: string): Promise<OrgRecord | undefined> {
    const row = await this.knex('organizations')
      .where(isUuid(ref) ? { id: ref } : { slug: ref })
      .first();
    return row ? withSettings<OrgRecord>(row) : undefined;
  }

  /** The organization, locked until the transaction ends: changes to it and to its memberships are serialized. */
  async lockByRef(trx: Tx, ref: string): Promise<OrgRecord | undefined> {
    const row = await trx('organizations')
      .where(isUuid(ref) ? { id: ref } : { slug: ref })
      .forNoKeyUpdate()
      .first();
    return row ? withSettings<OrgRecord>(row) : undefined;
  }

  async list(filter: OrgListFilter): Promise<{ rows: VisibleOrgRow[]; total: number }> {
    const membership = this.knex('org_memberships as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where('u.sub', filter.sub)
      .andWhere('u.is_active', true)
      .select('m.org_id', 'm.role', 'm.source')
      .as('mm');
    const query = this.knex('organizations as o').leftJoin(membership, 'mm.org_id', 'o.id');
    if (!filter.includeInactive) query.where('o.is_active', true);
    if (filter.memberOrSharedOnly) query.where((q) => q.whereNotNull('mm.org_id').orWhere('o.is_shared', true));
    if (filter.restrictTo) query.where((q) => q.where('o.id', filter.restrictTo!).orWhere('o.is_shared', true));
    const [counted] = await query.clone().count<{ n: string | number }[]>('* as n');
    const rows = await query
      .select('o.*', 'mm.role', 'mm.source')
      .orderBy([{ column: 'o.is_default', order: 'desc' }, { column: 'o.slug' }])
      .limit(filter.limit)
      .offset(filter.offset);
    return { rows: rows.map((row: Record<string, unknown>) => withSettings<VisibleOrgRow>(row)), total: Number(counted?.n ?? 0) };
  }

  /** Undefined when the slug is taken. */
  async insert(
    trx: Tx,
    row: { slug: string; name: string; description: string | null; settings_json: Record<string, unknown> },
  ): Promise<OrgRecord | undefined> {
    const [created] = await trx('organizations')
      .insert({ ...row, settings_json: JSON.stringify(row.settings_json) })
      .onConflict('slug')
      .ignore()
      .returning('*');
    return created ? withSettings<OrgRecord>(created) : undefined;
  }

  async update(trx: Tx, id: string, changes: OrgChanges): Promise<OrgRecord> {
    const { settings_json, ...rest } = changes;
    const [updated] = await trx('organizations')
      .where({ id })
      .update({
        ...rest,
        ...(settings_json !== undefined ? { settings_json: JSON.stringify(settings_json) } : {}),
        updated_at: trx.fn.now(),
      })
      .returning('*');
    return withSettings<OrgRecord>(updated);
  }

  /** Takes the shared mark off every organization but `exceptId`; answers those that had it. */
  async clearShared(trx: Tx, exceptId: string): Promise<{ id: string; slug: string }[]> {
    return trx('organizations')
      .where({ is_shared: true })
      .whereNot({ id: exceptId })
      .update({ is_shared: false, updated_at: trx.fn.now() })
      .returning(['id', 'slug']);
  }

  /** Everything the organization owns goes with it (foreign keys cascade); audit entries keep a NULL organization. */
  async remove(trx: Tx, id: string): Promise<boolean> {
    return (await trx('organizations').where({ id }).delete()) > 0;
  }

  /** Keeps a deleted organization's slug from ever naming another (`retired_org_slugs`). */
  async retireSlug(trx: Tx, slug: string, orgId: string): Promise<void> {
    await trx('retired_org_slugs').insert({ slug, org_id: orgId }).onConflict('slug').ignore();
  }

  /**
   * Whether the slug was a deleted organization's. Asked after the organization's insert: an insert that
   * waited on the slug of an organization being deleted reads the retirement its delete committed.
   */
  async slugRetired(trx: Tx, slug: string): Promise<boolean> {
    return (await trx('retired_org_slugs').where({ slug }).first('slug')) !== undefined;
  }
}
