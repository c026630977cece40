import { problem } from '../../../shared/api/problem.js';
import type { FileTextReader } from '../files/file-text.js';
import { checkDocument, MAX_DOCUMENT_FILE_BYTES, type DocumentError } from './plugins/static.js';

const AT = 'config.document_file_id';

const WHY = {
  not_found: 'names no file this organization may read (its own or the shared organization’s)',
  too_large: `names a file larger than ${MAX_DOCUMENT_FILE_BYTES} bytes`,
  not_utf8: 'names a file that is not UTF-8 text',
} as const;

/** A static provider's document file that cannot be used: its errors, as a saved configuration's would be. */
export class DocumentFileError extends Error {
  constructor(readonly errors: readonly DocumentError[]) {
    super(errors.map((e) => `${e.path}: ${e.message}`).join('; '));
  }

  toProblem() {
    return problem('invalid_provider_config', `The static configuration is not valid: ${this.message}`, { errors: this.errors });
  }
}

/**
 * A static provider's YAML document named by `document_file_id`: read through the files module as the
 * provider's organization (its own files or the shared organization's), within the size cap, UTF-8, and
 * checked with the inline document's code (syntax errors with line and column). Read when the provider is
 * saved and again at each use, since the file may have been replaced since.
 */
export class StaticDocuments {
  constructor(private readonly files: FileTextReader) {}

  /** The configuration with the file's text as `document` (never stored); others unchanged. Throws DocumentFileError. */
  async resolve(orgId: string, config: Record<string, unknown>): Promise<Record<string, unknown>> {
    const fileId = config.document_file_id;
    if (typeof fileId !== 'string') {
      // An inline document was checked when saved, but a rule added since (object type names) may refuse it now.
      const inline = typeof config.document === 'string' ? checkDocument(config.document, 'config.document') : [];
      if (inline.length > 0) throw new DocumentFileError(inline);
      return config;
    }
    const read = await this.files.readText(orgId, fileId, MAX_DOCUMENT_FILE_BYTES);
    if (!read.ok) throw new DocumentFileError([{ path: AT, message: WHY[read.reason] }]);
    const errors = checkDocument(read.text, AT);
    if (errors.length > 0) throw new DocumentFileError(errors);
    return { ...config, document: read.text };
  }

  /** On save: 422 `invalid_provider_config` when the named file cannot be used. */
  async check(orgId: string, config: Record<string, unknown>): Promise<void> {
    try {
      await this.resolve(orgId, config);
    } catch (error) {
      if (error instanceof DocumentFileError) throw error.toProblem();
      throw error;
    }
  }
}
