import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';
import type { ArtifactRow } from './artifacts-repo.js';

/** Text compresses well; most other artifacts (archives, images, backups) are compressed already. */
function compressible(contentType: string): boolean {
  return /^(?:text\/|application\/(?:json|xml|yaml|x-yaml|[\w.+-]+\+(?:json|xml)))/i.test(contentType);
}

/**
 * The run's artifacts as one zip, built while it is sent (yazl): each artifact is opened only when the zip
 * reaches it, so one is read at a time and nothing is held whole. An artifact that fails to open or read
 * ends the output with its error (the answer breaks off; its status was sent already).
 */
export function zipOf(artifacts: readonly ArtifactRow[], open: (row: ArtifactRow) => Promise<Readable>): Readable {
  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  zip.on('error', (error: Error) => output.destroy(error));
  for (const row of artifacts) {
    const options = { size: Number(row.size_bytes), mtime: new Date(row.created_at), compress: compressible(row.content_type) };
    zip.addReadStreamLazy(row.name, options, (done) => {
      open(row).then(
        (stream) => done(null, stream),
        (error: unknown) => done(error, undefined as never),
      );
    });
  }
  zip.end();
  return output;
}
