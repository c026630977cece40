import type { Column, OffsetPage } from '../runtime/table.js';
import { printJson } from '../runtime/io.js';
import { printPage } from '../runtime/table.js';
import { positiveNumber } from './runs/inputs.js';
import { flag, jsonFlag } from './shared.js';
import type { Verb } from './verb.js';

/** A list route of offset pages, filtered by `q` when it takes one, as a `list` verb shows it. */
export interface ListVerb<Row> {
  readonly path: string;
  readonly description: string;
  /** The `--q` flag's help: what it matches; absent for a route that takes no `q` (its query is strict). */
  readonly q?: string;
  readonly columns: readonly Column<Row>[];
  /** What an empty page prints. */
  readonly empty: string;
}

/** The verb `<group> list [--q TEXT] [--limit N] [--json]`: `GET path` as a table, `--json` the daemon's page `{items, total, limit, offset}`. */
export function listVerb<Row>(list: ListVerb<Row>): Verb {
  return {
    define: (command) => {
      command.description(list.description);
      if (list.q !== undefined) command.option('--q <text>', list.q);
      jsonFlag(command.option('--limit <n>', 'at most this many (1-500, default 50)'));
    },
    invoke: async ({ raw, ctx }) => {
      const q = flag.string(raw, 'q');
      const limit = positiveNumber(raw, 'limit', '--limit');
      const query = { ...(q === undefined ? {} : { q }), ...(limit === undefined ? {} : { limit: String(limit) }) };
      const page = (await ctx.apiClient().request({ method: 'GET', path: list.path, query })).body as OffsetPage<Row>;
      if (flag.json(raw)) return printJson(ctx.io, page);
      printPage(ctx.io, page, list.columns, list.empty);
    },
  };
}
