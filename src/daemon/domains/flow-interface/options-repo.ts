import type { Knex } from 'knex';
import type { OptionItem } from '../../../shared/api/flow-interface.js';
import { isUuid } from '../../../shared/ids.js';
import { pageWithTotal } from '../../db/page.js';
import { whereLive } from '../../db/soft-delete.js';

export interface OptionPage {
  readonly orgIds: readonly string[];
  readonly q?: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

type Row = { value: string; label: string; description: string | null };

/**
 * The rows the built option sources offer, live rows of the readable organizations only (the active one
 * and the shared one), by label: sites, devices, inventory objects and files by id, variables by name
 * (never their values).
 */
export class OptionsRepo {
  constructor(private readonly knex: Knex) {}

  async sites(page: OptionPage, filter: { parentId?: string | undefined }): Promise<{ rows: OptionItem[]; total: number }> {
    const query = whereLive(this.knex('sites')).whereIn('org_id', page.orgIds);
    if (filter.parentId !== undefined) query.where('parent_id', isUuid(filter.parentId) ? filter.parentId : null);
    this.#contains(query, page.q, ['name', 'description']);
    return this.#page(query, ['id as value', 'name as label', 'description'], page);
  }

  async devices(page: OptionPage, filter: { siteId?: string | undefined; platform?: string | undefined; role?: string | undefined }) {
    const query = whereLive(this.knex('devices')).whereIn('org_id', page.orgIds);
    if (filter.siteId !== undefined) query.where('site_id', isUuid(filter.siteId) ? filter.siteId : null);
    if (filter.platform !== undefined) query.where('platform', filter.platform);
    if (filter.role !== undefined) query.where('role', filter.role);
    this.#contains(query, page.q, ['name', 'hostname']);
    return this.#page(query, ['id as value', 'name as label', 'hostname as description'], page);
  }

  async variables(page: OptionPage, filter: { type?: string | undefined }) {
    const query = whereLive(this.knex('variables')).whereIn('org_id', page.orgIds);
    if (filter.type !== undefined) query.where('type', filter.type);
    this.#contains(query, page.q, ['name']);
    return this.#page(query, ['name as value', 'name as label', 'type as description'], page);
  }

  /** Objects the inventory providers synced and still see (a stale one, `deleted_at` set, is not offered). */
  async inventoryObjects(page: OptionPage, filter: { objectType?: string | undefined; providerId?: string | undefined }) {
    const query = whereLive(this.knex('inventory_objects')).whereIn('org_id', page.orgIds);
    if (filter.objectType !== undefined) query.where('object_type', filter.objectType);
    if (filter.providerId !== undefined) query.where('provider_id', filter.providerId);
    this.#contains(query, page.q, ['name', 'external_id']);
    return this.#page(query, ['id as value', 'name as label', 'object_type as description'], page);
  }

  /** Files of the file repositories, labelled by their path (`folder/name`), described by their content type. */
  async files(
    page: OptionPage,
    filter: { repositoryId?: string | undefined; folder?: string | undefined; contentType?: string | undefined },
  ) {
    const query = this.knex('files').whereIn('org_id', page.orgIds);
    if (filter.repositoryId !== undefined) query.where('repository_id', isUuid(filter.repositoryId) ? filter.repositoryId : null);
    if (filter.folder !== undefined) query.where('folder', filter.folder.replace(/\/+$/, ''));
    if (filter.contentType !== undefined) query.where('content_type', filter.contentType);
    this.#contains(query, page.q, ['name', 'folder']);
    const label = this.knex.raw(`concat_ws('/', nullif(folder, ''), name) AS label`);
    return this.#page(query, ['id as value', label, 'content_type as description'], page);
  }

  /** Of `ids`, those naming live devices of the readable organizations. */
  async liveDevices(orgIds: readonly string[], ids: readonly string[]): Promise<Set<string>> {
    const wellFormed = ids.filter(isUuid);
    if (wellFormed.length === 0) return new Set();
    const rows: { id: string }[] = await whereLive(this.knex('devices')).whereIn('org_id', orgIds).whereIn('id', wellFormed).select('id');
    return new Set(rows.map((row) => row.id));
  }

  #contains(query: Knex.QueryBuilder, q: string | undefined, columns: readonly string[]): void {
    if (!q) return;
    query.andWhere((b) => {
      for (const column of columns) b.orWhereRaw('position(lower(?) in lower(??)) > 0', [q, column]);
    });
  }

  async #page(
    query: Knex.QueryBuilder,
    columns: readonly (string | Knex.Raw)[],
    page: OptionPage,
  ): Promise<{ rows: OptionItem[]; total: number }> {
    const { rows, total } = await pageWithTotal<Row>(
      this.knex,
      query,
      columns,
      [
        { column: 'label', order: 'asc' },
        { column: 'value', order: 'asc' },
      ],
      page,
    );
    return { rows: rows.map((row) => ({ value: String(row.value), label: row.label, description: row.description ?? null })), total };
  }
}
