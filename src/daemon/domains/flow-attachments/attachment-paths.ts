import { problem } from '../../../shared/api/problem.js';
import { folderPath, joinPath, placeOf } from '../files/file-paths.js';

/** An attachment's path by the files domain's rules (NFC, no traversal, no absolute path...): `folder/name`. */
export function attachmentPath(raw: string, field = 'path', folder?: string): string {
  const place = placeOf(folder, raw, { folder: 'folder', name: field });
  return joinPath(place.folder, place.name);
}

/** A folder by the same rules; `''` is the root. */
export function attachmentFolder(raw: string | undefined, field = 'folder'): string {
  return folderPath(raw, field);
}

export function folderAndName(path: string): { folder: string; name: string } {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? { folder: '', name: path } : { folder: path.slice(0, cut), name: path.slice(cut + 1) };
}

/**
 * The paths of a set that cannot live together in a directory tree, as a container mounts them: a file
 * where another path needs a folder (`a` beside `a/b`). Duplicates are the caller's to refuse first.
 */
export function treeClashes(paths: Iterable<string>): string[] {
  const files = new Set(paths);
  const clashes = new Set<string>();
  for (const path of files) {
    for (let cut = path.indexOf('/'); cut >= 0; cut = path.indexOf('/', cut + 1)) {
      const folder = path.slice(0, cut);
      if (files.has(folder)) {
        clashes.add(folder);
        clashes.add(path);
      }
    }
  }
  return [...clashes].sort();
}

export function attachmentExists(paths: readonly string[]) {
  return problem(
    'attachment_exists',
    `These paths are taken, or clash with a file or folder of the flow: ${paths.slice(0, 10).join(', ')}.`,
    {
      paths: paths.slice(0, 100),
    },
  );
}
