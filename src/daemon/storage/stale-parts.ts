import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** A directory's entries, none when it does not exist (yet). */
export async function listing(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/**
 * Removes the part files in `dir` last modified before `before` (writes whose daemon died during them);
 * answers how many. A write in progress keeps appending to its part file, so its modification time stays
 * recent.
 */
export async function removeStaleParts(dir: string, before: Date): Promise<number> {
  let removed = 0;
  for (const name of await listing(dir)) {
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (info?.isFile() && info.mtime < before) {
      await rm(path, { force: true });
      removed += 1;
    }
  }
  return removed;
}
