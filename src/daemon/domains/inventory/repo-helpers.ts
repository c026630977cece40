import type { Knex } from 'knex';

/** A case-insensitive "contains" pattern in which `%`, `_` and `\` are literal characters. */
export function containsPattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Rows a caller active in `orgId` may list: live rows of every readable organization; with
 * `includeDeleted`, also the soft-deleted rows of its own organization (never the shared organization's:
 * a tenant can neither see why they went nor restore them).
 */
export function visibleIn(
  builder: Knex.QueryBuilder,
  orgId: string,
  orgIds: readonly string[],
  includeDeleted: boolean,
  table = '',
): Knex.QueryBuilder {
  const column = (name: string) => (table ? `${table}.${name}` : name);
  if (!includeDeleted) return builder.whereIn(column('org_id'), orgIds).whereNull(column('deleted_at'));
  return builder.where(column('org_id'), orgId).orWhere((b) => b.whereIn(column('org_id'), orgIds).whereNull(column('deleted_at')));
}
