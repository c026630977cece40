import type { Knex } from 'knex';
import { providerRefKey, type ProviderRef } from '../../../shared/inventory/provider-ref.js';
import { isUuid } from '../../../shared/ids.js';
import { prepared } from '../../db/prepared.js';

export { providerRefKey, type ProviderRef };

/**
 * Which devices the trigger paths (manual runs, webhooks, schedules) may target: live devices only. Both
 * lookups are one query whatever the number of ids or references, and take the caller's transaction so
 * they see what it sees.
 */
export class DeviceDirectory {
  constructor(private readonly knex: Knex) {}

  /**
   * The subset of `ids` naming live devices of `orgIds`, as given (a UUID in capitals matches its row and
   * is answered in capitals). Ids that are not UUIDs match nothing.
   */
  async liveIds(orgIds: readonly string[], ids: Iterable<string>, trx?: Knex.Transaction): Promise<Set<string>> {
    const given = [...new Set(ids)].filter(isUuid);
    const wanted = [...new Set(given.map((id) => id.toLowerCase()))];
    if (wanted.length === 0 || orgIds.length === 0) return new Set();
    const rows: { id: string }[] = await (trx ?? this.knex)('devices')
      .whereRaw('id = ANY(?::uuid[])', [wanted])
      .whereRaw('org_id = ANY(?::uuid[])', [[...orgIds]])
      .whereNull('deleted_at')
      .select('id')
      .options(prepared('svc_devices_live'));
    const found = new Set(rows.map((r) => r.id));
    return new Set(given.filter((id) => found.has(id.toLowerCase())));
  }

  /**
   * Live devices of exactly `orgId` (never the shared organization: a provider reference resolves only
   * in the caller's own inventory), keyed by `providerRefKey`. References naming nothing are absent.
   */
  async byProviderRefs(orgId: string, refs: readonly ProviderRef[], trx?: Knex.Transaction): Promise<Map<string, string>> {
    if (refs.length === 0) return new Map();
    const rows: { id: string; provider_id: string; external_id: string }[] = await (trx ?? this.knex)
      .select('d.id', 'd.provider_id', 'd.external_id')
      .from('devices as d')
      .joinRaw(
        'JOIN unnest(?::text[], ?::text[]) AS r(provider_id, external_id) ON d.provider_id = r.provider_id AND d.external_id = r.external_id',
        [refs.map((r) => r.provider_id), refs.map((r) => r.external_id)],
      )
      .where('d.org_id', orgId)
      .whereNull('d.deleted_at');
    return new Map(rows.map((row) => [providerRefKey(row), row.id]));
  }
}
