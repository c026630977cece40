import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';

/** One member of a streamed zip: its name inside the zip, what it says of itself, and how to open its bytes. */
export interface ZipMember {
  readonly name: string;
  readonly size: number;
  readonly mtime: Date;
  readonly contentType: string;
  open(): Promise<Readable>;
}

/** Text compresses well; most other content (archives, images, backups, OS images) is compressed already. */
export function compressible(contentType: string): boolean {
  return /^(?:text\/|application\/(?:json|xml|yaml|x-yaml|[\w.+-]+\+(?:json|xml)))/i.test(contentType);
}

/**
 * Members as one zip, built while it is sent (yazl): each member is opened only when the zip reaches it, so
 * one is read at a time and nothing is held whole. A member that fails to open or read ends the output
 * with its error (the answer breaks off; its status was sent already).
 */
export function zipStream(members: readonly ZipMember[]): Readable {
  const zip = new ZipFile();
  const output = zip.outputStream as Readable;
  zip.on('error', (error: Error) => output.destroy(error));
  for (const member of members) {
    const options = { size: member.size, mtime: member.mtime, compress: compressible(member.contentType) };
    zip.addReadStreamLazy(member.name, options, (done) => {
      member.open().then(
        (stream) => done(null, stream),
        (error: unknown) => done(error, undefined as never),
      );
    });
  }
  zip.end();
  return output;
}
