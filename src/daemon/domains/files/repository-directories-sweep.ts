import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isUuid } from '../../../shared/ids.js';
import type { RepositoriesRepo } from './repositories-repo.js';

/**
 * `files.sweep_repositories`: removes local repositories' directories (`<data dir>/files/<id>`) whose
 * repository row is gone. An organization's delete cascades to its repositories' rows in the database,
 * files and run artifacts included, but nothing there can reach their bytes on disk. A directory is only
 * made by a write to a repository read from its committed row, so one without a row is never in use.
 * S3 objects of such a repository stay: its bucket settings went with the row (docs/files.md).
 */
export async function sweepRepositoryDirectories(root: string, repositories: RepositoriesRepo): Promise<{ removed: number }> {
  const ids = (await directoriesIn(root)).filter(isUuid);
  const existing = await repositories.existingIds(ids);
  const gone = ids.filter((id) => !existing.has(id));
  for (const id of gone) await rm(join(root, id), { recursive: true, force: true });
  return { removed: gone.length };
}

async function directoriesIn(root: string): Promise<string[]> {
  try {
    return (await readdir(root, { withFileTypes: true })).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
