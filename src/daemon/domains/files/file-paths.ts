import { problem } from '../../../shared/api/problem.js';

/** Why a name or folder was refused; the 422's `reason`. */
export type PathRefusal = 'empty' | 'absolute' | 'traversal' | 'control_character' | 'backslash' | 'empty_segment' | 'too_long';

const MAX_NAME = 255;
const MAX_FOLDER = 1024;

function refuse(field: string, reason: PathRefusal) {
  return problem('invalid_file_path', `${field} is not a safe relative path (${reason}).`, { field, reason });
}

/** Unicode NFC (the same name typed on two systems is one name), then each check in turn. */
function segmentsOf(field: string, raw: string, max: number): string[] {
  const text = raw.normalize('NFC');
  if (text.length > max) throw refuse(field, 'too_long');
  if (/[\u0000-\u001f\u007f]/.test(text)) throw refuse(field, 'control_character');
  if (text.includes('\\')) throw refuse(field, 'backslash');
  if (text.startsWith('/') || /^[A-Za-z]:/.test(text)) throw refuse(field, 'absolute');
  const segments = text.split('/');
  if (segments.some((s) => s === '..' || s === '.')) throw refuse(field, 'traversal');
  if (segments.some((s) => s === '')) throw refuse(field, 'empty_segment');
  if (segments.some((s) => s.length > MAX_NAME)) throw refuse(field, 'too_long');
  return segments;
}

/** A file's name: one segment. */
export function fileName(raw: string, field = 'name'): string {
  if (raw === '') throw refuse(field, 'empty');
  const segments = segmentsOf(field, raw, MAX_NAME);
  if (segments.length > 1) throw refuse(field, 'traversal');
  return segments[0]!;
}

/** A folder: `''` (the root) or `a/b`; a trailing `/` is dropped. */
export function folderPath(raw: string | undefined, field = 'folder'): string {
  if (raw === undefined || raw === '') return '';
  return segmentsOf(field, raw.endsWith('/') ? raw.slice(0, -1) : raw, MAX_FOLDER).join('/');
}

/** A folder that must not be the root (creating, renaming or removing one). */
export function namedFolder(raw: string, field = 'path'): string {
  const path = folderPath(raw, field);
  if (path === '') throw refuse(field, 'empty');
  return path;
}

/**
 * An upload's `name` may carry folders (`configs/r1.cfg`): they join `folder`. The whole is checked, so
 * `../x` is refused whichever field holds it.
 */
export function placeOf(
  rawFolder: string | undefined,
  rawName: string,
  fields: { folder: string; name: string } = { folder: 'folder', name: 'name' },
): { folder: string; name: string } {
  const folder = folderPath(rawFolder, fields.folder);
  if (rawName === '') throw refuse(fields.name, 'empty');
  const segments = segmentsOf(fields.name, rawName, MAX_FOLDER);
  const name = fileName(segments.at(-1)!, fields.name);
  const extra = segments.slice(0, -1).join('/');
  const joined = [folder, extra].filter((s) => s !== '').join('/');
  if (joined.length > MAX_FOLDER) throw refuse(fields.folder, 'too_long');
  return { folder: joined, name };
}

export function joinPath(folder: string, name: string): string {
  return folder === '' ? name : `${folder}/${name}`;
}
