import { z } from 'zod';
import { stamps } from './stamps.js';
import { flag, hostname, label, name, nullableString, ownedRow, page, pageOf, repeated, searchText, tags } from './inventory.js';
import { pathId, uuid } from './id-schemas.js';

/** Wire schemas of the device routes (`/devices`): the daemon validates and documents with them. */

export const DEVICE_SORTS = [
  'name',
  '-name',
  'hostname',
  '-hostname',
  'platform',
  '-platform',
  'created_at',
  '-created_at',
  'updated_at',
  '-updated_at',
] as const;

export const devicePath = z.object({ device_id: pathId });

/** POST and PUT take the same body: PUT replaces every editable field (absent optional ones are cleared). */
export const deviceBody = z
  .object({
    name,
    hostname: hostname.nullable().optional(),
    platform: label(100).nullable().optional(),
    role: label(100).nullable().optional(),
    site_id: uuid.nullable().optional(),
    serial: label(255).nullable().optional(),
    tags: tags.optional(),
    attributes: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const overlayBody = z
  .object({ tags: tags.nullable().optional(), maintenance: z.boolean().nullable().optional() })
  .strict()
  .refine((body) => body.tags !== undefined || body.maintenance !== undefined, 'give tags and/or maintenance');

export const deviceListQuery = z
  .object({
    q: searchText.optional(),
    site_id: uuid.optional(),
    platform: label(100).optional(),
    role: label(100).optional(),
    tag: label(100).optional(),
    include_deleted: flag.optional(),
    ...page,
  })
  .strict();

/** What a search and its ids narrow by: repeated `site_id`, `platform`, `role` are alternatives, repeated `tag`s all required. */
const searchFilters = {
  q: searchText.optional(),
  site_id: repeated(uuid).optional(),
  platform: repeated(label(100)).optional(),
  role: repeated(label(100)).optional(),
  tag: repeated(label(100)).optional(),
  source: z.enum(['local', 'provider']).optional(),
  provider_id: label(255).optional(),
  maintenance: flag.optional(),
  scope: z.enum(['all', 'own', 'shared']).default('all'),
};
export type DeviceSearchFilters = z.output<z.ZodObject<typeof searchFilters>>;

export const deviceSearchQuery = z.object({ ...searchFilters, sort: z.enum(DEVICE_SORTS).optional(), ...page }).strict();

export const deviceSearchIdsQuery = z
  .object({
    ...searchFilters,
    limit: z
      .string()
      .regex(/^\d{1,7}$/)
      .transform(Number)
      .pipe(z.number().int().min(1))
      .optional(),
  })
  .strict();

export const deviceOverlay = z.object({
  tags: z.array(z.string()),
  maintenance: z.boolean().nullable().describe('Local maintenance override; null when none is set.'),
});

export const device = z.object({
  ...ownedRow,
  hostname: nullableString,
  platform: nullableString,
  role: nullableString,
  site_id: nullableString,
  serial: nullableString,
  tags: z.array(z.string()),
  attributes: z.record(z.string(), z.unknown()),
  overlay: deviceOverlay,
  provider_id: nullableString,
  external_id: nullableString,
  provider_managed: z
    .boolean()
    .describe('Provider-sourced: its own fields change only through provider sync; `overlay` is the local part.'),
  ...stamps,
});
export type Device = z.infer<typeof device>;

export const devicePage = pageOf(device);

/** At most SERVICE_INVENTORY_MAX_RUN_TARGETS (or `limit`) ids in name order; `truncated` when `total` is more. */
export const deviceSearchIds = z.object({
  ids: z.array(z.string()),
  total: z.number().int(),
  truncated: z.boolean(),
  limit: z.number().int(),
});
