import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A NetBox-shaped server for the provider tests: `/api/status/`, `/api/dcim/sites/`, `/api/dcim/devices/`,
 * `/api/ipam/vlans/`, with NetBox's paging (limit/offset, 50 unless asked, an absolute `next`), token
 * authentication (`Authorization: Token <t>`, 401 `{"detail":"Invalid token."}` otherwise), exact-match
 * filters (`site_id`, `status`, …) and `last_updated__gte`. The test mutates `sites`, `devices` and `vlans`
 * between syncs and arms faults on a page: a slow answer, a 500 (or 429 with Retry-After), a number of times.
 */

export type Item = Record<string, unknown> & { id: number; last_updated?: string };

export interface Fault {
  readonly path: string;
  readonly offset: number;
  /** `first_page`: the page is answered as the first one, `next` included (a proxy dropping the query string). */
  readonly kind: 'slow' | '500' | '429' | 'first_page';
  /** How many requests of that page it hits (Infinity: all). */
  times: number;
  readonly delayMs?: number;
}

export interface NetboxFixture {
  readonly url: string;
  token: string;
  readonly sites: Map<number, Item>;
  readonly devices: Map<number, Item>;
  readonly vlans: Map<number, Item>;
  readonly faults: Fault[];
  /** Every request's path and query, in order. */
  readonly requests: string[];
  /** The `Authorization` header of every request. */
  readonly authorizations: (string | undefined)[];
  close(): Promise<void>;
}

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 1000;

export async function startNetboxFixture(token = 'nb-token-0123456789'): Promise<NetboxFixture> {
  const fixture = {
    token,
    sites: new Map<number, Item>(),
    devices: new Map<number, Item>(),
    vlans: new Map<number, Item>(),
    faults: [] as Fault[],
    requests: [] as string[],
    authorizations: [] as (string | undefined)[],
  };
  const lists: Record<string, Map<number, Item>> = {
    '/api/dcim/sites/': fixture.sites,
    '/api/dcim/devices/': fixture.devices,
    '/api/ipam/vlans/': fixture.vlans,
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    fixture.requests.push(`${url.pathname}${url.search}`);
    fixture.authorizations.push(req.headers.authorization);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Token ${fixture.token}`) return send(401, { detail: 'Invalid token.' });
    if (url.pathname === '/api/status/') return send(200, { 'netbox-version': '4.1.3', 'python-version': '3.12.3' });
    const list = lists[url.pathname];
    if (!list) return send(404, { detail: 'Not found.' });
    const limit = Math.min(Number(url.searchParams.get('limit') ?? DEFAULT_LIMIT) || DEFAULT_LIMIT, MAX_LIMIT);
    const asked = Number(url.searchParams.get('offset') ?? 0) || 0;
    const fault = fixture.faults.find((f) => f.path === url.pathname && f.offset === asked && f.times > 0);
    if (fault) fault.times--;
    const offset = fault?.kind === 'first_page' ? 0 : asked;
    if (fault?.kind === '500') return send(500, { error: 'Server Error' });
    if (fault?.kind === '429') return send(429, { detail: 'Request was throttled.' }, { 'retry-after': '0' });
    const matching = [...list.values()].filter((item) => matches(item, url.searchParams)).sort((a, b) => a.id - b.id);
    const next = offset + limit < matching.length ? pageUrl(url, limit, offset + limit) : null;
    const previous = offset > 0 ? pageUrl(url, limit, Math.max(0, offset - limit)) : null;
    const body = { count: matching.length, next, previous, results: matching.slice(offset, offset + limit) };
    if (fault?.kind === 'slow') setTimeout(() => send(200, body), fault.delayMs ?? 1000);
    else send(200, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(fixture, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

function pageUrl(url: URL, limit: number, offset: number): string {
  const next = new URL(url);
  next.searchParams.set('limit', String(limit));
  next.searchParams.set('offset', String(offset));
  return next.toString();
}

/** Exact-match filters on top-level values or a nested object's `id`/`value`; `last_updated__gte` by time. */
function matches(item: Item, params: URLSearchParams): boolean {
  for (const [key, value] of params) {
    if (key === 'limit' || key === 'offset' || key === 'brief') continue;
    if (key === 'last_updated__gte') {
      if (!item.last_updated || Date.parse(item.last_updated) < Date.parse(value)) return false;
      continue;
    }
    const field = key.endsWith('_id') ? key.slice(0, -3) : key;
    const actual = item[field];
    const comparable =
      typeof actual === 'object' && actual !== null
        ? ((actual as Record<string, unknown>).id ?? (actual as Record<string, unknown>).value)
        : actual;
    if (String(comparable) !== value) return false;
  }
  return true;
}

/** A NetBox site as the API answers it. */
export function netboxSite(id: number, name: string, extra: Partial<Item> = {}): Item {
  return {
    id,
    name,
    slug: name.toLowerCase(),
    description: '',
    physical_address: '',
    tags: [],
    last_updated: '2026-01-01T00:00:00Z',
    ...extra,
  };
}

/** A NetBox device as the API answers it (NetBox 4: `role`; the primary IP with its prefix length). */
export function netboxDevice(id: number, name: string, siteId: number | null, extra: Partial<Item> = {}): Item {
  return {
    id,
    name,
    role: { id: 1, slug: 'core', name: 'Core' },
    platform: { id: 1, slug: 'ios-xe', name: 'IOS XE' },
    site: siteId === null ? null : { id: siteId, name: `site-${siteId}` },
    serial: `SN${id}`,
    status: { value: 'active', label: 'Active' },
    device_type: { id: 1, model: 'C9300' },
    primary_ip: { id, address: `10.0.${Math.floor(id / 250)}.${(id % 250) + 1}/24` },
    tags: [{ id: 1, name: 'lab', slug: 'lab' }],
    custom_fields: {},
    last_updated: '2026-01-01T00:00:00Z',
    ...extra,
  };
}
