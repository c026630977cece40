import type { IncomingMessage } from 'node:http';
import { findUnstorableTextInJson, UNSTORABLE_TEXT_MESSAGES } from '../../../shared/json/unstorable-text.js';
import { problems } from '../../../shared/api/problems.js';
import type { AppContext, BodyMode, Step } from '../types.js';
import { requestHeader } from '../request-header.js';

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

function hasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/** Reads the body, refusing at once when `Content-Length` already says it is too large. */
export async function readLimited(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw problems.payloadTooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw problems.payloadTooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Per-route body handling: JSON for most routes, raw bytes where a signature covers them. Runs after
 * routing (and, later, authorization), so an anonymous caller cannot make the daemon read a body.
 */
export function parseBody(defaultLimit: number): Step {
  return function parseBodyStep(ctx) {
    const binding = ctx.state.mounted!.binding;
    const mode = binding?.bodyMode ?? 'json';
    if (mode === 'none' || !METHODS_WITH_BODY.has(ctx.method) || !hasBody(ctx.req)) return;
    return readAndParse(ctx, mode, binding?.maxBodyBytes ?? defaultLimit);
  };
}

async function readAndParse(ctx: AppContext, mode: BodyMode, limit: number): Promise<void> {
  if (mode === 'json' && !JSON_TYPE.test(requestHeader(ctx, 'content-type'))) throw problems.unsupportedMediaType();
  const raw = await readLimited(ctx.req, limit);
  ctx.state.rawBody = raw;
  if (mode === 'json' && raw.length > 0) {
    const text = raw.toString('utf8');
    try {
      ctx.state.body = JSON.parse(text);
    } catch {
      throw problems.malformedJson();
    }
    // I-JSON (RFC 7493) refuses unpaired surrogates: no column could store one as sent. NUL is left to each
    // field's own rules, which name the field.
    const unpaired = findUnstorableTextInJson(text, ctx.state.body, ['unpaired_surrogate']);
    if (unpaired) throw problems.malformedJson([{ path: unpaired.path, message: UNSTORABLE_TEXT_MESSAGES.unpaired_surrogate }]);
  }
}
