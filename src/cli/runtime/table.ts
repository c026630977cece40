import type { IO } from './io.js';

/** One column of a human table: a header and how a row shows in it. */
export interface Column<Row> {
  readonly header: string;
  readonly value: (row: Row) => string | number | boolean | null | undefined;
}

const cell = (value: string | number | boolean | null | undefined) =>
  value === null || value === undefined || value === '' ? '-' : String(value);

/** Rows as aligned text: a header line, then one line per row, columns two spaces apart. */
export function formatTable<Row>(rows: readonly Row[], columns: readonly Column<Row>[]): string {
  const grid = [columns.map((c) => c.header), ...rows.map((row) => columns.map((c) => cell(c.value(row))))];
  const widths = columns.map((_, i) => Math.max(...grid.map((line) => line[i]!.length)));
  return (
    grid
      .map((line) =>
        line
          .map((text, i) => (i === line.length - 1 ? text : text.padEnd(widths[i]!)))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/**
 * Prints a table on stdout; an empty list prints nothing there and says so on stderr, so a script
 * reading stdout sees no rows rather than a sentence.
 */
export function printTable<Row>(io: IO, rows: readonly Row[], columns: readonly Column<Row>[], empty: string): void {
  if (rows.length === 0) io.err(`${empty}\n`);
  else io.out(formatTable(rows, columns));
}

/** Field / value lines for one record. */
export function printRecord(io: IO, fields: readonly (readonly [string, string | number | boolean | null | undefined])[]): void {
  const width = Math.max(...fields.map(([name]) => name.length)) + 1;
  io.out(fields.map(([name, value]) => `${`${name}:`.padEnd(width)}  ${cell(value)}`).join('\n') + '\n');
}

/** A list route's offset page, as the daemon answers it. */
export interface OffsetPage<Row> {
  readonly items: Row[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
}

/** A page's rows as a table; when the page holds fewer than the total, says so on stderr. */
export function printPage<Row>(
  io: IO,
  page: Pick<OffsetPage<Row>, 'items' | 'total'>,
  columns: readonly Column<Row>[],
  empty: string,
): void {
  printTable(io, page.items, columns, empty);
  if (page.total > page.items.length && page.items.length > 0)
    io.err(`Showing ${page.items.length} of ${page.total}; use --limit for more.\n`);
}
