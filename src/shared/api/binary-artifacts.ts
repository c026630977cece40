import { z } from 'zod';
import { file, filePlaceFilters, fileUsage } from './files.js';
import { pageShape } from './query.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of binary artifacts (`binary_artifact:view|purge`): the binary files (OS images, archives,
 * disk images) of the organization's file repositories, seen across repositories. docs/binary-artifacts.md.
 */

/** Ids one bulk request may name: more is refused by the schema (422); the zip has its own, smaller cap (413). */
export const MAX_BULK_ARTIFACT_IDS = 1000;

export const binaryArtifactPath = z.object({ artifact_id: pathId });

const bool = z.enum(['true', 'false']);

export const listBinaryArtifactsQuery = z
  .object({
    ...filePlaceFilters,
    min_size: z
      .string()
      .regex(/^\d{1,16}$/, 'a whole number of bytes')
      .transform(Number)
      .optional()
      .describe('Only artifacts of at least this many bytes'),
    ...pageShape,
  })
  .strict();

const ids = z.array(z.guid()).min(1).max(MAX_BULK_ARTIFACT_IDS);

export const bulkDownloadBody = z.object({ ids }).strict();

export const bulkDeleteBody = z
  .object({ ids, force: z.boolean().optional().describe('Delete even what flows, unfinished runs or inventory providers use') })
  .strict();

export const deleteBinaryArtifactQuery = z
  .object({ force: bool.optional().describe('Delete even when flows, unfinished runs or inventory providers use it') })
  .strict();

/** A binary artifact: the file, where it is kept, and who uses it (the shared organization's: the caller's users only). */
export const binaryArtifact = file.extend({
  repository_name: z.string(),
  /** The shared organization's: listed here, deleted only there. */
  shared: z.boolean(),
  usage: fileUsage.omit({ file_id: true }),
});
export type BinaryArtifact = z.infer<typeof binaryArtifact>;

export const binaryArtifactList = z.object({
  items: z.array(binaryArtifact),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type BinaryArtifactList = z.infer<typeof binaryArtifactList>;

export const bulkDeleteAnswer = z.object({
  deleted: z.array(z.object({ id: z.string(), path: z.string(), repository_id: z.string(), forced: z.boolean() })),
});
export type BulkDeleteAnswer = z.infer<typeof bulkDeleteAnswer>;

/** The zip's bytes, as the OpenAPI document names them. */
export const zipBytes = z.string().describe('A zip archive');
