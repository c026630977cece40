import { isUuid } from '../../../shared/ids.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import type { FilesRepo } from './files-repo.js';
import type { FilesService } from './files-service.js';

/** A file read as text, or why it could not be: absent or not readable by the organization, too big, not UTF-8. */
export type FileText =
  | { readonly ok: true; readonly text: string; readonly file: { readonly id: string; readonly name: string; readonly revision: number } }
  | { readonly ok: false; readonly reason: 'not_found' | 'too_large' | 'not_utf8' };

/** What another domain may ask of the files: a small text file's content (an inventory provider's YAML document). */
export interface FileTextReader {
  readText(orgId: string, fileId: string, maxBytes: number): Promise<FileText>;
}

/**
 * Reads a file of the organization or of the shared organization as UTF-8 text, at most `maxBytes`
 * (checked on the row before any byte is read, and again on the bytes, which may have been replaced since).
 * Another organization's file answers `not_found` and is never opened.
 */
export class FileTexts implements FileTextReader {
  constructor(
    private readonly repo: FilesRepo,
    private readonly files: FilesService,
    private readonly access: OrgAccessRepo,
  ) {}

  async readText(orgId: string, fileId: string, maxBytes: number): Promise<FileText> {
    const row = isUuid(fileId) ? await this.repo.find(await this.access.readableOrgIds(orgId), fileId) : undefined;
    if (!row) return { ok: false, reason: 'not_found' };
    if (Number(row.size_bytes) > maxBytes) return { ok: false, reason: 'too_large' };
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of await this.files.open(row)) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) return { ok: false, reason: 'too_large' };
      chunks.push(chunk as Buffer);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
    } catch {
      return { ok: false, reason: 'not_utf8' };
    }
    return { ok: true, text, file: { id: row.id, name: row.name, revision: row.revision } };
  }
}
