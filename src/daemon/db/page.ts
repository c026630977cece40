import type { Knex } from 'knex';

/** The column each row of `pageWithTotal` carries the filter's total in; the views read only their own fields. */
const TOTAL = 'page_total';

/**
 * A page of `filtered` (its conditions set, no columns, order or limit yet) and how many rows the
 * conditions match, in one statement: the total rides on every row as `count(*) OVER ()`, a window over
 * the whole filtered set, which PostgreSQL computes before ORDER BY and LIMIT. Before, a list made a
 * second round trip for a separate `count(*)`. A page past the end has no row to carry the total, so
 * only then is the count asked for on its own.
 */
export async function pageWithTotal<Row>(
  knex: Knex,
  filtered: Knex.QueryBuilder,
  columns: readonly (string | Knex.Raw)[],
  order: readonly { column: string; order: 'asc' | 'desc' }[],
  page: { readonly limit: number; readonly offset: number },
): Promise<{ rows: Row[]; total: number }> {
  const rows: (Row & { [TOTAL]: string | number })[] = await filtered
    .clone()
    .select([...columns, knex.raw(`count(*) OVER () AS ${TOTAL}`)])
    .orderBy([...order])
    .limit(page.limit)
    .offset(page.offset);
  if (rows.length > 0) return { rows, total: Number(rows[0]![TOTAL]) };
  if (page.offset === 0) return { rows, total: 0 };
  const [counted] = await filtered.clone().count<{ n: string | number }[]>('* as n');
  return { rows, total: Number(counted?.n ?? 0) };
}

/** Newest first by `column`, ties in id order: a stable order for a history, so pages neither skip nor repeat rows. */
export function newestFirst(column: string): readonly { column: string; order: 'asc' | 'desc' }[] {
  return [
    { column, order: 'desc' },
    { column: 'id', order: 'asc' },
  ];
}
