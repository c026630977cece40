/**
 * The API's two ways of paging a list, as `svc api --paginate` follows them:
 * offset pages `{items, total, limit, offset}` (most lists) and keyset pages `{items, next_cursor}`
 * (the audit log).
 */
export type Page = Record<string, unknown> & { readonly items: unknown[] };

export function isPage(body: unknown): body is Page {
  return typeof body === 'object' && body !== null && Array.isArray((body as { items?: unknown }).items);
}

/** The query parameter and value that ask for the page after `page`, or undefined when it was the last. */
export function nextPageQuery(page: Page): { readonly key: 'cursor' | 'offset'; readonly value: string } | undefined {
  if ('next_cursor' in page)
    return typeof page.next_cursor === 'string' && page.next_cursor !== '' ? { key: 'cursor', value: page.next_cursor } : undefined;
  const { total, offset } = page;
  if (typeof total !== 'number' || typeof offset !== 'number' || page.items.length === 0) return undefined;
  const next = offset + page.items.length;
  return next < total ? { key: 'offset', value: String(next) } : undefined;
}

/** One answer for all pages, as gh merges arrays: the first page with every page's items, and no next cursor. */
export function mergePages(pages: readonly Page[]): Page {
  const merged: Page = { ...pages[0]!, items: pages.flatMap((p) => p.items) };
  if ('next_cursor' in merged) merged.next_cursor = null;
  return merged;
}
