import { z } from 'zod';
import { pageShape } from './query.js';
import { pathId } from './id-schemas.js';

/** Wire schemas of the inventory object routes (`/inventory/objects…`, `/inventory/object-types…`). */

/** An object type: lower case, digits and `_`, starting with a letter, at most 64 characters. */
export const OBJECT_TYPE = /^[a-z][a-z0-9_]{0,63}$/;

/** A malformed type or id is no object at all (404), so both are plain strings here. */
export const objectTypePath = z.object({ object_type: z.string() });
export const objectPath = z.object({ object_type: z.string(), object_id: pathId });

const bool = z.enum(['true', 'false']);

export const listObjectsQuery = z
  .object({
    provider_id: z.string().max(255).optional(),
    q: z.string().trim().max(255).optional().describe('Name contains (case-insensitive)'),
    include_stale: bool.optional().describe('Add objects gone from their provider'),
    ...pageShape,
  })
  .strict();

export const resolveObjectQuery = z
  .object({
    provider_id: z.string().min(1).max(255),
    external_id: z.string().min(1).max(255).optional(),
    name: z.string().min(1).max(255).optional(),
  })
  .strict()
  .refine((q) => (q.external_id === undefined) !== (q.name === undefined), { message: 'give external_id or name (one of them)' });

export const inventoryObject = z.object({
  id: z.string(),
  org_id: z.string(),
  object_type: z.string(),
  provider_id: z.string(),
  external_id: z.string(),
  name: z.string(),
  data: z.record(z.string(), z.unknown()),
  stale: z.boolean().describe('Gone from its provider at the last complete sync'),
  provider_updated_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type InventoryObject = z.infer<typeof inventoryObject>;

export const objectList = z.object({
  items: z.array(inventoryObject),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type ObjectList = z.infer<typeof objectList>;

export const objectTypes = z.object({
  items: z.array(z.object({ object_type: z.string(), provider_types: z.array(z.string()).describe('Plugins that import it') })),
});
export type ObjectTypes = z.infer<typeof objectTypes>;

export const objectTypeCounts = z.object({
  items: z.array(z.object({ object_type: z.string(), live: z.number().int(), stale: z.number().int() })),
});
export type ObjectTypeCounts = z.infer<typeof objectTypeCounts>;
