import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validate } from '../src/daemon/http/validate.js';
import {
  WEBHOOK_AUTH_MODES,
  WEBHOOK_DEFAULTS,
  generatePathToken,
  isPathTokenShape,
  webhookNameSchema,
} from '../src/shared/webhooks/endpoint-rules.js';

const name = (value: unknown) => webhookNameSchema.safeParse(value);

describe('the endpoint name', () => {
  it('is stored trimmed', () => {
    expect(name('  Deploy on merge \n').data).toBe('Deploy on merge');
  });

  it('is refused blank', () => {
    for (const blank of ['', '   ', '\n\t']) expect(name(blank).success, JSON.stringify(blank)).toBe(false);
  });

  it('has at most 128 characters, counted as characters', () => {
    const of128 = `${'abcdefg '.repeat(16).slice(0, 127)}z`;
    expect(name(of128).data).toHaveLength(128);
    expect(name(`${of128}z`).success).toBe(false);
    expect(name('🚀'.repeat(64)).success).toBe(true);
  });

  it('has no word longer than 64 characters', () => {
    expect(name(`ok ${'x'.repeat(64)}`).success).toBe(true);
    expect(name(`ok ${'x'.repeat(65)}`).success).toBe(false);
  });

  it('has no control characters inside', () => {
    for (const bad of ['a\tb', 'a\nb', 'a\u0000b', 'a\u007fb', 'a\u009bb']) expect(name(bad).success, JSON.stringify(bad)).toBe(false);
  });

  it('puts its issues on `name` in a 422', () => {
    expect(() => validate(z.object({ name: webhookNameSchema }), { name: ' ' })).toThrow(
      expect.objectContaining({ code: 'validation_failed', extensions: { errors: [expect.objectContaining({ path: 'name' })] } }),
    );
  });
});

describe('the path token', () => {
  it('is 43 URL-safe characters of fresh randomness each time', () => {
    const tokens = new Set(Array.from({ length: 1000 }, generatePathToken));
    expect(tokens.size).toBe(1000);
    for (const token of tokens) expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('has a shape the trigger route can check before any query', () => {
    expect(isPathTokenShape(generatePathToken())).toBe(true);
    for (const bad of ['', 'short', `${generatePathToken()}x`, `${generatePathToken().slice(1)}/`, `${generatePathToken().slice(1)}=`])
      expect(isPathTokenShape(bad)).toBe(false);
  });
});

describe('defaults', () => {
  it('are those of the spec', () => {
    expect(WEBHOOK_AUTH_MODES).toEqual(['hmac_sha256', 'bearer']);
    expect(WEBHOOK_DEFAULTS).toEqual({ authMode: 'hmac_sha256', enabled: true, replayWindowSeconds: 300, rateLimitPerMinute: 60 });
  });
});
