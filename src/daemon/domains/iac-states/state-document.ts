import { createHash } from 'node:crypto';
import { stateDocument } from '../../../shared/api/iac-states.js';
import { problem } from '../../../shared/api/problem.js';

/** What a version records of its document besides the sealed bytes. */
export interface DocumentFacts {
  readonly serial: number | null;
  readonly lineage: string | null;
  readonly size: number;
  readonly sha256: string;
}

/**
 * Checks a state document as the backend receives it: `Content-MD5` (base64, as Terraform sends it), when
 * given, must be the body's (400 `content_md5_mismatch`), and the body must be a JSON object whose
 * `serial`/`lineage`, when present, are a whole number and a string (422 `invalid_state_document`).
 */
export function readStateDocument(raw: Buffer, contentMd5: string | undefined): DocumentFacts {
  if (contentMd5 !== undefined && contentMd5 !== '') {
    const actual = createHash('md5').update(raw).digest('base64');
    if (actual !== contentMd5.trim()) {
      throw problem('content_md5_mismatch', 'Content-MD5 does not match the body.', { expected: contentMd5, actual });
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw problem('invalid_state_document', 'The state is not a JSON document.');
  }
  const checked = stateDocument.safeParse(parsed);
  if (!checked.success || typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw problem('invalid_state_document', 'The state must be a JSON object with a whole-number `serial` and a string `lineage`.');
  }
  return {
    serial: checked.data.serial ?? null,
    lineage: checked.data.lineage ?? null,
    size: raw.length,
    sha256: createHash('sha256').update(raw).digest('hex'),
  };
}
