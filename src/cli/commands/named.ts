import { isUuid } from '../../shared/ids.js';
import { CliError, usageError } from '../errors.js';
import type { ApiClient } from '../http/client.js';
import { isPage, nextPageQuery } from './api/pages.js';

/** A row a list route answers, under the name it may be given by. */
export interface NamedRow {
  readonly id: string;
  readonly name: string;
  /** The shared organization's, seen from another one. */
  readonly shared?: boolean;
}

/**
 * The rows of `path`'s list named exactly `name`, or `name` without its surrounding blanks: most names are
 * stored trimmed, so `" core "` (a pasted name, a quoted shell variable) means the row named `core`.
 * `filter` narrows the list on the server: by default `q`, which finds every row whose name contains it,
 * so a common name may have more than a page of such rows, the exact one among the later pages: those
 * are read too, as `svc api --paginate` follows them. A list that takes no filter (`{}`) is read whole the
 * same way.
 */
export async function listedNamed<Row extends { readonly name: string }>(
  client: ApiClient,
  path: string,
  name: string,
  filter: Readonly<Record<string, string>> = { q: name.trim() || name },
): Promise<Row[]> {
  const names = new Set([name, name.trim()]);
  const named: Row[] = [];
  let query: Record<string, string> = { ...filter, limit: '500' };
  for (;;) {
    const page = (await client.request({ method: 'GET', path, query })).body;
    if (!isPage(page)) return named;
    named.push(...(page.items as Row[]).filter((row) => names.has(row.name)));
    const next = nextPageQuery(page);
    if (next === undefined) return named;
    query = { ...query, [next.key]: next.value };
  }
}

/** Where a name is looked for unless a caller says otherwise: the rows the organization reads. */
const SEEN = 'in this organization or the shared one';

/**
 * The id of the one row of `matches`, the rows named `ref` `where` (in this organization, or it and the
 * shared one). Names are labels or unique only per organization, so several matches are refused with
 * their ids (exit 2) rather than guessed between; none is exit 3.
 */
export function theOneNamed(what: string, ref: string, matches: readonly NamedRow[], where = SEEN): string {
  if (matches.length === 1) return matches[0]!.id;
  if (matches.length === 0) throw new CliError('not_found', `no ${what} named "${ref}" ${where}`);
  throw usageError(
    `more than one ${what} is named "${ref}": ${matches.map((r) => `${r.id}${r.shared ? ' (shared)' : ''}`).join(', ')}`,
    `pass the ${what} id instead of the name`,
  );
}

/** REF as a route takes it: a UUID as is, else the id of the one row of `path`'s list named exactly REF. */
export async function idByName(client: ApiClient, path: string, what: string, ref: string, where = SEEN): Promise<string> {
  if (isUuid(ref)) return ref;
  return theOneNamed(what, ref, await listedNamed<NamedRow>(client, path, ref), where);
}
