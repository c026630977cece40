import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { attachmentHeader } from '../../http/attachment-header.js';
import { noneMatchHolds } from '../../http/entity-tag.js';
import { requestHeader } from '../../http/request-header.js';
import type { AppContext } from '../../http/types.js';
import { verifying } from '../../storage/verify-stream.js';

/**
 * Streams stored bytes: their type, length, name and `ETag` (the SHA-256; `If-None-Match` answers 304
 * without opening them); they are hashed on their way out, so damaged bytes end the answer short.
 */
export async function sendBytes(
  ctx: AppContext,
  item: { path: string; sha256: string; size_bytes: string | number; content_type: string },
  open: () => Promise<Readable>,
): Promise<void> {
  const etag = `"${item.sha256}"`;
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'private, no-cache');
  if (noneMatchHolds(requestHeader(ctx, 'if-none-match'), etag)) {
    ctx.status = 304;
    return;
  }
  const bytes = await open();
  ctx.body = pipeline(bytes, verifying(item.sha256, Number(item.size_bytes)), () => undefined);
  ctx.set('Content-Disposition', attachmentHeader(item.path.slice(item.path.lastIndexOf('/') + 1)));
  ctx.set('Content-Type', item.content_type);
  ctx.length = Number(item.size_bytes);
}
