import { fileTypeFromBuffer } from 'file-type';

const OCTETS = 'application/octet-stream';

/**
 * A file's content type from its first bytes (file-type's signatures: images, archives, disk images,
 * executables, ...). Bytes with no signature are text when they decode as UTF-8 without NUL (`text/plain;
 * charset=utf-8`, or the uploader's declared text/* or JSON/YAML/XML type), else the declared type, else
 * application/octet-stream. The declared type never overrides a signature: a renamed binary stays one.
 */
export async function sniffContentType(head: Buffer, declared: string | undefined): Promise<string> {
  const found = await fileTypeFromBuffer(head);
  if (found) return found.mime;
  if (head.length > 0 && looksLikeText(head)) {
    if (declared && /^(text\/|application\/(json|yaml|x-yaml|xml)\b)/.test(declared)) return declared;
    return 'text/plain; charset=utf-8';
  }
  return head.length === 0 ? (declared ?? OCTETS) : declared && !declared.startsWith('text/') ? declared : OCTETS;
}

function looksLikeText(head: Buffer): boolean {
  if (head.includes(0)) return false;
  try {
    // As a stream: the head may end inside a multi-byte character, which is then not an error.
    new TextDecoder('utf-8', { fatal: true }).decode(head, { stream: true });
    return true;
  } catch {
    return false;
  }
}
