import { z } from 'zod';
import type { ResourceFamily } from '../family.js';

export const BUNDLE_VERSION = 1;

/**
 * The bundle document's schema: `version`, the organization the organization families came from or go
 * to, and one optional section per family (a section left out is not managed by the bundle at all; an
 * empty one manages the family as empty, which with prune destroys every item).
 */
export function bundleSchema(families: readonly ResourceFamily[]) {
  const sections = Object.fromEntries(families.map((f) => [f.name, z.array(f.item).optional().describe(f.summary)]));
  return z
    .object({
      version: z.literal(BUNDLE_VERSION).describe('Bundle format version'),
      org: z.string().min(1).max(255).optional().describe('Slug of the organization of the organization-scoped sections'),
      ...sections,
    })
    .strict();
}

/** JSON Schema (draft 2020-12) of a bundle, from the families' zod schemas (as the OpenAPI document is made). */
export function bundleJsonSchema(families: readonly ResourceFamily[]): Record<string, unknown> {
  return z.toJSONSchema(bundleSchema(families), { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
}
