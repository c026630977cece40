import type { Readable } from 'node:stream';
import { zipStream } from '../../storage/zip-stream.js';
import type { ArtifactRow } from './artifacts-repo.js';

/** The run's artifacts as one zip built while it is sent (storage/zip-stream.ts), entries named by the artifacts' names. */
export function zipOf(artifacts: readonly ArtifactRow[], open: (row: ArtifactRow) => Promise<Readable>): Readable {
  return zipStream(
    artifacts.map((row) => ({
      name: row.name,
      size: Number(row.size_bytes),
      mtime: new Date(row.created_at),
      contentType: row.content_type,
      open: () => open(row),
    })),
  );
}
