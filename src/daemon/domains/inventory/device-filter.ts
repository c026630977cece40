import type { Knex } from 'knex';
import type { DEVICE_SORTS } from '../../../shared/api/devices.js';
import { containsPattern } from './repo-helpers.js';

export type DeviceSort = (typeof DEVICE_SORTS)[number];

/**
 * What narrows a device list or search. Each field narrows (AND); within a field, several values are
 * alternatives (OR), except `tags`, which must all be present (NetBox's tag filter does the same).
 */
export interface DeviceFilter {
  /** Case-insensitive substring of name or hostname; `textIn: 'rich'` adds serial and tags (own and overlay). */
  readonly q?: string | undefined;
  readonly textIn?: 'basic' | 'rich';
  readonly siteIds?: readonly string[] | undefined;
  /** Platforms or roles, compared case-insensitively. */
  readonly platforms?: readonly string[] | undefined;
  readonly roles?: readonly string[] | undefined;
  /** Exact tags, each present among the device's tags or its overlay's. */
  readonly tags?: readonly string[] | undefined;
  /** `provider`: provider-sourced devices only; `local`: the others. */
  readonly source?: 'local' | 'provider' | undefined;
  readonly providerId?: string | undefined;
  /** The overlay's maintenance override: true or false as set (an unset override matches neither). */
  readonly maintenance?: boolean | undefined;
}

const ALL_TAGS = `tags || COALESCE(overlay_json->'tags', '[]'::jsonb)`;

/** Adds the filter's conditions to a query over `devices` (part of the repository: the only place knex appears). */
export function applyDeviceFilter(query: Knex.QueryBuilder, filter: DeviceFilter): void {
  if (filter.q) {
    const pattern = containsPattern(filter.q);
    query.andWhere((b) => {
      b.whereILike('name', pattern).orWhereILike('hostname', pattern);
      if (filter.textIn === 'rich') {
        b.orWhereILike('serial', pattern).orWhereRaw(
          `EXISTS (SELECT 1 FROM jsonb_array_elements_text(${ALL_TAGS}) AS t(tag) WHERE t.tag ILIKE ?)`,
          [pattern],
        );
      }
    });
  }
  if (filter.siteIds?.length) query.whereIn('site_id', filter.siteIds);
  if (filter.platforms?.length) query.whereRaw('lower(platform) = ANY(?::text[])', [filter.platforms.map((p) => p.toLowerCase())]);
  if (filter.roles?.length) query.whereRaw('lower(role) = ANY(?::text[])', [filter.roles.map((r) => r.toLowerCase())]);
  for (const tag of filter.tags ?? []) query.whereRaw(`(${ALL_TAGS}) @> ?::jsonb`, [JSON.stringify([tag])]);
  if (filter.source === 'provider') query.whereNotNull('provider_id');
  if (filter.source === 'local') query.whereNull('provider_id');
  if (filter.providerId !== undefined) query.where('provider_id', filter.providerId);
  if (filter.maintenance !== undefined) query.whereRaw('overlay_json @> ?::jsonb', [JSON.stringify({ maintenance: filter.maintenance })]);
}
