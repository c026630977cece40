import { z } from 'zod';
import { problems } from '../../../shared/api/problems.js';
import { isManagementAddress } from './hostname.js';

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

export const hostname = z.string().trim().refine(isManagementAddress, { message: 'must be an IPv4 or IPv6 address or a DNS name' });

/** Any UUID PostgreSQL accepts (as `isUuid` does for path ids), in the lower case the database answers with. */
export const uuid = z.guid().transform((v) => v.toLowerCase());

const number = (max: number) =>
  z
    .string()
    .regex(/^\d{1,7}$/)
    .transform(Number)
    .pipe(z.number().int().min(0).max(max));

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

export const bulkBody = z.object({ ids: z.array(uuid).min(1).max(MAX_BULK_IDS) }).strict();

export const noQuery = z.object({}).strict();

/** The JSON Schema of a request body for the OpenAPI document (input side: before trims and defaults). */
export function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}

/** Fields only provider sync writes; named in a body they are refused with a pointed message. */
export const SYNC_ONLY = ['provider_id', 'external_id'] as const;

export function refuseSyncOnly(body: unknown): void {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return;
  const named = SYNC_ONLY.filter((key) => Object.hasOwn(body, key));
  if (named.length > 0) throw problems.validation(named.map((key) => ({ path: key, message: 'is set by provider sync only' })));
}
