import { z } from 'zod';
import { ProviderRequestError, type ProviderHttp } from '../provider-http.js';
import type { ImportedDevice, ImportedObject, ImportedSite, InventorySource, ListFrom, Page } from './plugin.js';

/**
 * A provider with NetBox's REST shape (Django REST framework): `Authorization: Token <t>`, limit/offset
 * pages `{count, next, previous, results}` with an absolute `next`, `last_updated__gte` for what changed.
 * NetBox and Nautobot differ only in their paths and in how a few fields are spelled (`DrfDialect`).
 */

export const drfConfig = (objectTypes: readonly [string, ...string[]]) =>
  z
    .object({
      url: z.string().describe('Base URL of the provider, e.g. https://netbox.example.com (the API is under /api/)'),
      page_size: z.number().int().min(1).max(1000).default(100).describe('Items per page asked for'),
      object_types: z
        .array(z.enum(objectTypes))
        .max(objectTypes.length)
        .default([])
        .describe('Object types to import beside sites and devices'),
      site_filters: z.record(z.string(), z.string()).default({}).describe('Query filters of the site listing (e.g. {"region": "eu"})'),
      device_filters: z
        .record(z.string(), z.string())
        .default({})
        .describe('Query filters of the device listing (e.g. {"status": "active"})'),
      timeout_ms: z
        .number()
        .int()
        .min(100)
        .max(300_000)
        .optional()
        .describe('Time limit of one request (SERVICE_OUTBOUND_TIMEOUT_MS unless given)'),
    })
    .strict();

export type DrfConfig = z.infer<ReturnType<typeof drfConfig>>;

/** How one DRF-shaped provider names its endpoints and fields. */
export interface DrfDialect {
  readonly sitesPath: string;
  readonly devicesPath: string;
  readonly objectPaths: Readonly<Record<string, { path: string; name: (item: Raw) => unknown }>>;
  /** Extra query parameters on every listing (Nautobot's `depth=1`, so related objects carry their names). */
  readonly listParams: Readonly<Record<string, string>>;
  readonly versionKey: string;
  site(item: Raw): Omit<ImportedSite, 'external_id' | 'last_updated'>;
  device(item: Raw): Omit<ImportedDevice, 'external_id' | 'last_updated'>;
}

export type Raw = Record<string, unknown>;

export class DrfSource implements InventorySource {
  readonly objectTypes: readonly string[];
  private readonly base: URL;

  constructor(
    private readonly dialect: DrfDialect,
    private readonly config: DrfConfig,
    private readonly token: string | null,
    private readonly http: ProviderHttp,
  ) {
    this.base = new URL(config.url.endsWith('/') ? config.url : `${config.url}/`);
    this.objectTypes = config.object_types;
  }

  async test(): Promise<Record<string, unknown>> {
    const status = (await this.get(this.url('api/status/', {}))) as Raw;
    // The status page may be open to anyone: a listing is what proves the token.
    await this.get(this.url(this.dialect.sitesPath, { limit: '1' }));
    const version = status[this.dialect.versionKey];
    return typeof version === 'string' ? { version } : {};
  }

  async discover(): Promise<{ sites: number | null; devices: number | null; objects: Record<string, number | null> }> {
    const count = async (path: string) => countOf(await this.get(this.url(path, { limit: '1' })));
    const objects: Record<string, number | null> = {};
    for (const type of this.objectTypes) objects[type] = await count(this.dialect.objectPaths[type]!.path);
    return { sites: await count(this.dialect.sitesPath), devices: await count(this.dialect.devicesPath), objects };
  }

  async sites(from: ListFrom): Promise<Page<ImportedSite>> {
    return this.page(this.dialect.sitesPath, this.config.site_filters, from, (item) => this.dialect.site(item));
  }

  async devices(from: ListFrom): Promise<Page<ImportedDevice>> {
    return this.page(this.dialect.devicesPath, this.config.device_filters, from, (item) => this.dialect.device(item));
  }

  async objects(type: string, from: ListFrom): Promise<Page<ImportedObject>> {
    const endpoint = this.dialect.objectPaths[type];
    if (!endpoint) return { items: [], malformed: 0, next: null };
    return this.page(endpoint.path, {}, from, (item) => {
      const name = endpoint.name(item);
      return { name: typeof name === 'string' || typeof name === 'number' ? String(name) : '', data: item };
    });
  }

  private async page<T>(
    path: string,
    filters: Readonly<Record<string, string>>,
    from: ListFrom,
    read: (item: Raw) => Omit<T, 'external_id' | 'last_updated'>,
  ): Promise<Page<T>> {
    const since: Record<string, string> = from.since ? { last_updated__gte: from.since.toISOString() } : {};
    const url = from.cursor ?? this.url(path, { ...filters, ...since, limit: String(this.config.page_size), offset: '0' }).toString();
    const asked = this.sameOrigin(url);
    const body = (await this.get(asked)) as Raw;
    if (!Array.isArray(body.results)) throw new ProviderRequestError('malformed_answer', 'the page has no `results` list', url);
    const items: T[] = [];
    let malformed = 0;
    for (const item of body.results as unknown[]) {
      const id = (item as Raw | null)?.id;
      if (typeof item !== 'object' || item === null || (typeof id !== 'number' && typeof id !== 'string')) {
        malformed++;
        continue;
      }
      const updated = typeof (item as Raw).last_updated === 'string' ? new Date((item as Raw).last_updated as string) : null;
      items.push({
        ...read(item as Raw),
        external_id: String(id),
        last_updated: updated && !Number.isNaN(updated.getTime()) ? updated : null,
      } as T);
    }
    const next = typeof body.next === 'string' && body.next.length > 0 ? this.sameOrigin(body.next) : null;
    // A provider that answers the page it was asked for as its own next (a proxy dropping the query
    // string, so every page is the first) would be read for ever.
    if (next === asked)
      throw new ProviderRequestError('malformed_answer', 'the provider linked the page it answered as the next one', asked);
    return { items, malformed, next };
  }

  private url(path: string, query: Readonly<Record<string, string>>): URL {
    const url = new URL(path, this.base);
    for (const [key, value] of Object.entries({ ...this.dialect.listParams, ...query })) url.searchParams.set(key, value);
    return url;
  }

  /** A `next` link must stay on the configured provider: the credential goes with it. */
  private sameOrigin(url: string | URL): string {
    const parsed = new URL(url);
    if (parsed.origin !== this.base.origin) {
      throw new ProviderRequestError('malformed_answer', 'the provider linked a page on another origin', parsed.origin);
    }
    return parsed.toString();
  }

  private get(url: string | URL): Promise<unknown> {
    return this.http.getJson(url.toString(), this.token === null ? {} : { authorization: `Token ${this.token}` });
  }
}

function countOf(body: unknown): number | null {
  const count = (body as Raw | null)?.count;
  return typeof count === 'number' ? count : null;
}

/** Helpers the dialects read fields with: a nested object's member, a non-empty string or null, tag names. */
export const read = {
  nested(item: Raw, key: string, member: string): unknown {
    const value = item[key];
    return typeof value === 'object' && value !== null ? (value as Raw)[member] : undefined;
  },
  text(value: unknown): string | null {
    if (typeof value === 'number') return String(value);
    return typeof value === 'string' && value.trim().length > 0 ? value.trim() : null;
  },
  tags(item: Raw): string[] {
    const tags = Array.isArray(item.tags) ? (item.tags as unknown[]) : [];
    return tags.map((tag) => read.text((tag as Raw | null)?.name ?? tag)).filter((tag): tag is string => tag !== null);
  },
  /** An interface address (`10.0.0.1/24`) as a management address. */
  address(value: unknown): string | null {
    const text = read.text(value);
    return text === null ? null : (text.split('/')[0] ?? null);
  },
};
