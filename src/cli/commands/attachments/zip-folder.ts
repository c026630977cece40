import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { ZipFile } from 'yazl';

/** The regular files under `dir` as zip entry names (`/`-separated, relative), and what was passed over. */
async function filesUnder(dir: string, prefix = ''): Promise<{ files: string[]; skipped: string[] }> {
  const files: string[] = [];
  const skipped: string[] = [];
  const entries = (await readdir(join(dir, prefix), { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    const name = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isFile()) files.push(name);
    else if (entry.isDirectory()) {
      const below = await filesUnder(dir, name);
      files.push(...below.files);
      skipped.push(...below.skipped);
    } else skipped.push(name);
  }
  return { files, skipped };
}

/**
 * The files under `dir` as one zip, made while it is sent: yazl opens each file only when the zip
 * reaches it, so a large folder is never held whole. Links and other special files are not followed
 * (they are listed in `skipped`): a link could reach outside the folder.
 */
export async function zipFolder(dir: string): Promise<{ bytes: AsyncIterable<Uint8Array>; files: number; skipped: string[] }> {
  const { files, skipped } = await filesUnder(dir);
  const zip = new ZipFile();
  for (const name of files) zip.addFile(join(dir, ...name.split('/')), name);
  zip.end();
  return { bytes: zip.outputStream as Readable, files: files.length, skipped };
}
