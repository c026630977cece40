import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Trigger authentication, shared by the daemon (verifies) and `svc webhooks send` (signs), so both
 * sides compute the signature with the same bytes.
 */
export const SIGNATURE_HEADER = 'X-Service-Signature';
export const TIMESTAMP_HEADER = 'X-Service-Timestamp';
export const IDEMPOTENCY_HEADER = 'X-Idempotency-Key';

/** Node joins a repeated header into one string with ", " and some frameworks hand over an array: both are refused. */
export type HeaderValue = string | readonly string[] | undefined;

export type VerifyResult = { readonly ok: true } | { readonly ok: false; readonly reason: VerifyFailure };
export type VerifyFailure = 'missing_headers' | 'bad_timestamp' | 'stale_timestamp' | 'bad_signature';

export type BearerResult = { readonly ok: true } | { readonly ok: false; readonly reason: 'missing_headers' | 'bad_bearer' };

// More than 15 digits would lose precision as a number, and no clock needs them.
const TIMESTAMP = /^[0-9]{1,15}$/;
const SIGNATURE = /^[0-9a-f]{64}$/;
const BEARER = /^bearer ([^\s]+)$/i;
const DOT = Buffer.from('.');

/**
 * Lowercase hex HMAC-SHA256 over `<timestamp>.` followed by the raw body bytes. The spec speaks of the
 * body "decoded as UTF-8": for a valid UTF-8 body its bytes are exactly that text's encoding, and
 * hashing the bytes (never a re-encoded copy) means a body that is not UTF-8 cannot be made to match
 * another body through decoding's replacement characters. A string key stands for its UTF-8 bytes.
 */
export function signPayload(key: Buffer | string, timestamp: string, rawBody: Buffer): string {
  return createHmac('sha256', key).update(timestamp, 'utf8').update(DOT).update(rawBody).digest('hex');
}

/** One header value: undefined when absent, null when sent more than once (as an array), else the value. */
export function singleHeader(value: HeaderValue): string | undefined | null {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return value.length === 1 ? value[0]! : null;
  return value;
}

export interface VerifySignatureInput {
  readonly key: Buffer | string;
  readonly timestampHeader: HeaderValue;
  readonly signatureHeader: HeaderValue;
  readonly rawBody: Buffer;
  /** Unix seconds of the receiver's clock. */
  readonly nowSeconds: number;
  readonly replayWindowSeconds: number;
}

/**
 * The `hmac_sha256` check. Cheap refusals come first (headers, timestamp), so a flood of stale or
 * malformed requests costs no HMAC. A duplicated header is refused by its format: ", " is neither a
 * digit nor hex.
 */
export function verifySignature(input: VerifySignatureInput): VerifyResult {
  const timestamp = singleHeader(input.timestampHeader);
  const signature = singleHeader(input.signatureHeader);
  if (timestamp === undefined || signature === undefined) return { ok: false, reason: 'missing_headers' };
  if (timestamp === null || !TIMESTAMP.test(timestamp)) return { ok: false, reason: 'bad_timestamp' };
  if (Math.abs(input.nowSeconds - Number(timestamp)) > input.replayWindowSeconds) return { ok: false, reason: 'stale_timestamp' };
  if (signature === null || !SIGNATURE.test(signature)) return { ok: false, reason: 'bad_signature' };
  const expected = Buffer.from(signPayload(input.key, timestamp, input.rawBody), 'hex');
  const given = Buffer.from(signature, 'hex');
  return timingSafeEqual(expected, given) ? { ok: true } : { ok: false, reason: 'bad_signature' };
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * The `bearer` check: `Authorization: Bearer <token>` (scheme in any case, one space, one token)
 * equal to `expected`. Both sides are hashed first, so the comparison is constant-time whatever the
 * lengths, and an empty expected value never matches.
 */
export function verifyBearer(expected: string, authorizationHeader: HeaderValue): BearerResult {
  const header = singleHeader(authorizationHeader);
  if (header === undefined) return { ok: false, reason: 'missing_headers' };
  const match = header === null ? null : BEARER.exec(header);
  if (match === null) return { ok: false, reason: 'bad_bearer' };
  const equal = timingSafeEqual(digest(expected), digest(match[1]!));
  return equal && expected !== '' ? { ok: true } : { ok: false, reason: 'bad_bearer' };
}
