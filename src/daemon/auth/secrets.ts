import { createHash, randomBytes } from 'node:crypto';

/** A URL-safe random secret of `bytes` bytes (32 bytes = 256 bits). */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** What the database keeps instead of a secret: its SHA-256, hex. */
export function digestOf(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}
