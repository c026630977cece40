import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signPayload, verifyBearer, verifySignature, type VerifySignatureInput } from '../src/shared/webhooks/signing.js';

const KEY = 'whsec-test-key';
const NOW = 1_767_225_600;
const BODY = Buffer.from('{"params":{"ticket":"CHG-1","note":"grüße"}}');

/** The signature as an external sender computes it, with nothing from the code under test. */
function independentSignature(key: string, timestamp: string, body: Buffer): string {
  return createHmac('sha256', key)
    .update(`${timestamp}.${body.toString('utf8')}`)
    .digest('hex');
}

function check(overrides: Partial<VerifySignatureInput> = {}) {
  const timestamp = String(NOW);
  return verifySignature({
    key: KEY,
    timestampHeader: timestamp,
    signatureHeader: independentSignature(KEY, timestamp, BODY),
    rawBody: BODY,
    nowSeconds: NOW,
    replayWindowSeconds: 300,
    ...overrides,
  });
}

describe('signPayload', () => {
  it('is the lowercase hex HMAC-SHA256 of "<timestamp>.<body>"', () => {
    expect(signPayload(KEY, '1700000000', BODY)).toBe(independentSignature(KEY, '1700000000', BODY));
    expect(signPayload(Buffer.from(KEY), '1700000000', BODY)).toBe(independentSignature(KEY, '1700000000', BODY));
    expect(signPayload(KEY, '1', BODY)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('covers the raw bytes, so a body that is not UTF-8 does not collide with its decoded text', () => {
    const invalid = Buffer.from([0x7b, 0xff, 0x7d]);
    const decoded = Buffer.from(invalid.toString('utf8'));
    expect(signPayload(KEY, '1', invalid)).not.toBe(signPayload(KEY, '1', decoded));
  });
});

describe('verifySignature', () => {
  it('accepts a signature computed independently over the same bytes', () => {
    expect(check()).toEqual({ ok: true });
  });

  it('refuses a body with one byte changed', () => {
    const changed = Buffer.from(BODY);
    changed.writeUInt8(changed.readUInt8(changed.length - 3) ^ 0x01, changed.length - 3);
    expect(check({ rawBody: changed })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuses the same JSON serialised differently', () => {
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(BODY.toString('utf8')), null, 1));
    expect(check({ rawBody: reserialised })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('refuses a signature made with another key', () => {
    expect(check({ key: 'another-key' })).toEqual({ ok: false, reason: 'bad_signature' });
  });

  it('accepts only exactly 64 lowercase hex digits', () => {
    const good = independentSignature(KEY, String(NOW), BODY);
    for (const bad of [
      good.toUpperCase(),
      good.slice(1),
      `${good}0`,
      `${good} `,
      `${good}garbage`,
      `sha256=${good}`,
      `${good}, ${good}`,
      '',
    ]) {
      expect(check({ signatureHeader: bad }), bad).toEqual({ ok: false, reason: 'bad_signature' });
    }
  });

  it('refuses a repeated signature header handed over as an array', () => {
    const good = independentSignature(KEY, String(NOW), BODY);
    expect(check({ signatureHeader: [good, good] })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(check({ signatureHeader: [good] })).toEqual({ ok: true });
  });

  it('accepts a timestamp up to the window away in either direction, and no further', () => {
    const signedAt = (offset: number) => {
      const timestamp = String(NOW + offset);
      return check({ timestampHeader: timestamp, signatureHeader: independentSignature(KEY, timestamp, BODY) });
    };
    expect(signedAt(-300)).toEqual({ ok: true });
    expect(signedAt(300)).toEqual({ ok: true });
    expect(signedAt(-301)).toEqual({ ok: false, reason: 'stale_timestamp' });
    expect(signedAt(301)).toEqual({ ok: false, reason: 'stale_timestamp' });
  });

  it("applies the endpoint's own window", () => {
    const timestamp = String(NOW - 30);
    const signed = { timestampHeader: timestamp, signatureHeader: independentSignature(KEY, timestamp, BODY) };
    expect(check({ ...signed, replayWindowSeconds: 30 })).toEqual({ ok: true });
    expect(check({ ...signed, replayWindowSeconds: 29 })).toEqual({ ok: false, reason: 'stale_timestamp' });
  });

  it('refuses a timestamp that is not plain decimal digits, before any HMAC', () => {
    for (const bad of [
      '1e9',
      ` ${NOW}`,
      `${NOW} `,
      `+${NOW}`,
      `${NOW}abc`,
      '-5',
      '',
      `${NOW}.5`,
      '0x10',
      '1234567890123456',
      `${NOW}, ${NOW}`,
    ]) {
      // Signed over the bad value itself, so only the format can be what refuses it.
      expect(check({ timestampHeader: bad, signatureHeader: independentSignature(KEY, bad, BODY) }), bad).toEqual({
        ok: false,
        reason: 'bad_timestamp',
      });
    }
    expect(check({ timestampHeader: [String(NOW), String(NOW)] })).toEqual({ ok: false, reason: 'bad_timestamp' });
  });

  it('accepts a timestamp of 15 digits when the clock is there', () => {
    const timestamp = '000001767225600';
    expect(check({ timestampHeader: timestamp, signatureHeader: independentSignature(KEY, timestamp, BODY) })).toEqual({ ok: true });
  });

  it('says missing_headers when either header is absent', () => {
    expect(check({ timestampHeader: undefined })).toEqual({ ok: false, reason: 'missing_headers' });
    expect(check({ signatureHeader: undefined })).toEqual({ ok: false, reason: 'missing_headers' });
  });
});

describe('verifyBearer', () => {
  const TOKEN = 'tok_3f9a-Long.Enough~token/+=';

  it('accepts the expected token with the Bearer scheme in any case', () => {
    for (const scheme of ['Bearer', 'bearer', 'BEARER', 'bEaReR'])
      expect(verifyBearer(TOKEN, `${scheme} ${TOKEN}`), scheme).toEqual({ ok: true });
  });

  it('refuses another token, whatever its length', () => {
    for (const other of ['x', TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase(), 'y'.repeat(10_000)]) {
      expect(verifyBearer(TOKEN, `Bearer ${other}`)).toEqual({ ok: false, reason: 'bad_bearer' });
    }
  });

  it('refuses a header that is not exactly "Bearer <one token>"', () => {
    for (const bad of [
      TOKEN,
      `Basic ${TOKEN}`,
      `Bearer  ${TOKEN}`,
      `Bearer ${TOKEN} `,
      ` Bearer ${TOKEN}`,
      `Bearer ${TOKEN} extra`,
      `Bearer\t${TOKEN}`,
      `Bearer ${TOKEN}, Bearer ${TOKEN}`,
      'Bearer',
      'Bearer ',
      '',
    ]) {
      expect(verifyBearer(TOKEN, bad), JSON.stringify(bad)).toEqual({ ok: false, reason: 'bad_bearer' });
    }
    expect(verifyBearer(TOKEN, [`Bearer ${TOKEN}`, `Bearer ${TOKEN}`])).toEqual({ ok: false, reason: 'bad_bearer' });
  });

  it('says missing_headers without an Authorization header', () => {
    expect(verifyBearer(TOKEN, undefined)).toEqual({ ok: false, reason: 'missing_headers' });
  });

  it('never matches an empty expected token', () => {
    expect(verifyBearer('', 'Bearer ')).toEqual({ ok: false, reason: 'bad_bearer' });
  });
});
