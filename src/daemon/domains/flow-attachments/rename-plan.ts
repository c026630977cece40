import { problems } from '../../../shared/api/problems.js';
import { joinPath } from '../files/file-paths.js';
import { attachmentExists, attachmentFolder, attachmentPath, treeClashes } from './attachment-paths.js';

/** One rename of a bulk rename: a file's path, or a folder's when `from` ends in `/`. */
export interface Rename {
  readonly from: string;
  readonly to: string;
}

export interface Move {
  readonly id: string;
  readonly from: string;
  readonly to: string;
}

/**
 * What a bulk rename does to the flow's attachments, checked whole before anything changes: every `from`
 * names an attachment (or a folder holding some: 422 at `renames[i].from` otherwise), no attachment is
 * moved twice, and the tree after all the moves has no path twice and no file where a folder must be
 * (409 `attachment_exists`). A move to where it is already is dropped.
 */
export function planRenames(existing: readonly { id: string; path: string }[], renames: readonly Rename[]): Move[] {
  const moves = new Map<string, Move>();
  renames.forEach((rename, i) => {
    const at = (member: 'from' | 'to') => `renames[${i}].${member}`;
    const found: Move[] = [];
    if (rename.from.endsWith('/')) {
      const from = attachmentFolder(rename.from, at('from'));
      const to = attachmentFolder(rename.to, at('to'));
      if (from === '') throw problems.validation([{ path: at('from'), message: 'the root cannot be renamed' }]);
      for (const row of existing) {
        if (row.path.startsWith(`${from}/`)) found.push({ id: row.id, from: row.path, to: joinPath(to, row.path.slice(from.length + 1)) });
      }
    } else {
      const from = attachmentPath(rename.from, at('from'));
      const row = existing.find((r) => r.path === from);
      if (row) found.push({ id: row.id, from, to: attachmentPath(rename.to, at('to')) });
    }
    if (found.length === 0) throw problems.validation([{ path: at('from'), message: `no attachment at ${rename.from}` }]);
    for (const move of found) {
      if (moves.has(move.id)) throw problems.validation([{ path: at('from'), message: `${move.from} is renamed twice` }]);
      moves.set(move.id, move);
    }
  });
  const after = existing.map((row) => moves.get(row.id)?.to ?? row.path);
  const seen = new Set<string>();
  const twice = after.filter((path) => seen.size === seen.add(path).size);
  if (twice.length > 0) throw attachmentExists(twice);
  const clashes = treeClashes(after);
  if (clashes.length > 0) throw attachmentExists(clashes);
  return [...moves.values()].filter((move) => move.from !== move.to);
}
