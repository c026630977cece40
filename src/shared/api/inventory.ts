import { z } from 'zod';
import { uuid } from './id-schemas.js';
import { isManagementAddress } from '../inventory/hostname.js';

/**
 * What the inventory's wire schemas (`sites.ts`, `devices.ts`) are made of: the field rules both resources
 * follow, and the page and bulk shapes (the stamps every row answers with are in stamps.ts).
 */

export const DEFAULT_PAGE = 50;
export const MAX_PAGE = 500;
export const MAX_BULK_IDS = 1000;
export const MAX_TAGS = 100;
export const MAX_TAG_CHARS = 100;

const CONTROL = /\p{Cc}/u;

/** Length as PostgreSQL counts it (code points), not as JavaScript does (UTF-16 units). */
const chars = (value: string) => [...value].length;

/** Trimmed, 1..max characters, no control characters (NUL, which PostgreSQL text cannot hold, among them). */
export const label = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .refine((v) => chars(v) <= max, { message: `must be at most ${max} characters` })
    .refine((v) => !CONTROL.test(v), { message: 'must not contain control characters' });

export const name = label(255);

/** Free text (descriptions, addresses): any printable text and line breaks, bounded. */
export const text = (max: number) =>
  z
    .string()
    .refine((v) => chars(v) <= max, { message: `must be at most ${max} characters` })
    .refine((v) => !v.includes('\u0000'), { message: 'must not contain NUL' });

/** A list of tags: each trimmed and checked like a name; duplicates dropped, first occurrence kept. */
export const tags = z
  .array(label(MAX_TAG_CHARS))
  .max(MAX_TAGS)
  .transform((list) => [...new Set(list)]);

/**
 * A list of tags as a configuration bundle states it: a tag named twice is refused, not dropped, so that
 * what is applied is what the bundle says and the next plan finds nothing to change.
 */
export const distinctTags = z
  .array(label(MAX_TAG_CHARS))
  .max(MAX_TAGS)
  .refine((list) => new Set(list).size === list.length, { message: 'names a tag twice' });

export const hostname = z.string().trim().refine(isManagementAddress, { message: 'must be an IPv4 or IPv6 address or a DNS name' });

const number = (max: number) =>
  z
    .string()
    .regex(/^\d{1,7}$/)
    .transform(Number)
    .pipe(z.number().int().min(0).max(max));

/** `limit` (50, at most 500) and `offset` of a list's query. */
export const page = {
  limit: number(MAX_PAGE).pipe(z.number().min(1)).default(DEFAULT_PAGE),
  offset: number(10_000_000).default(0),
};

export const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

/** A query parameter that may be repeated (`?tag=a&tag=b`): always an array. */
export const repeated = (item: z.ZodType<string>, max = 50) =>
  z
    .union([item, z.array(item)])
    .transform((v) => [v].flat())
    .pipe(z.array(z.string()).max(max));

export const searchText = z.string().trim().max(255);

export const noQuery = z.object({}).strict();

/** A copy under a new name. */
export const duplicateBody = z.object({ name }).strict();

/** Fields only provider sync writes; named in a body they are refused by name, before the body's schema. */
export const SYNC_ONLY = ['provider_id', 'external_id'] as const;

export const bulkBody = z.object({ ids: z.array(uuid).min(1).max(MAX_BULK_IDS) }).strict();

/**
 * Per-id outcome of a bulk request. `ok`: applied; `unchanged`: already in the asked state (restoring a
 * live row); `not_found`: unknown, another organization's, or not in a state the operation applies to;
 * `shared_read_only`: the shared organization's; `conflict`: restoring would duplicate a live name;
 * `in_use`: a site that still has live child sites or devices.
 */
export const bulkStatus = z.enum(['ok', 'unchanged', 'not_found', 'shared_read_only', 'conflict', 'in_use']);

/** One result per distinct id, in the order given. */
export const bulkAnswer = z.object({ results: z.array(z.object({ id: z.string(), status: bulkStatus })) });
export type BulkAnswer = z.infer<typeof bulkAnswer>;

export const nullableString = z.string().nullable();

/** Members every inventory row answers with. */
export const ownedRow = {
  id: z.string(),
  org_id: z.string(),
  shared: z.boolean().describe('The row belongs to the shared organization (readable here, not writable).'),
  name: z.string(),
};

/** A page of a list: `{items, total, limit, offset}`. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ items: z.array(item), total: z.number().int(), limit: z.number().int(), offset: z.number().int() });
