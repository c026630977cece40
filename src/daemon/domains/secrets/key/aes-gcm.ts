import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/** One AES-256-GCM ciphertext with what decrypting it needs besides the key and the associated data. */
export interface Sealed {
  readonly nonce: Buffer;
  readonly ciphertext: Buffer;
  readonly tag: Buffer;
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Associated data as an unambiguous encoding of its parts (a JSON array), so ("a/b", "c") and ("a", "b/c")
 * never bind the same ciphertext.
 */
export function associatedData(...parts: readonly string[]): Buffer {
  return Buffer.from(JSON.stringify(parts), 'utf8');
}

/** Encrypts with a fresh random 96-bit nonce: a nonce is never reused under one key. */
export function seal(key: Buffer, plaintext: string, aad: Buffer): Sealed {
  return sealBytes(key, Buffer.from(plaintext, 'utf8'), aad);
}

/** `seal` of bytes (documents that are not text to the caller: IaC state versions). */
export function sealBytes(key: Buffer, plaintext: Buffer, aad: Buffer): Sealed {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { nonce, ciphertext, tag: cipher.getAuthTag() };
}

/** Decrypts, or throws when the key, the associated data or any byte of the sealed value is not the original. */
export function open(key: Buffer, sealed: Sealed, aad: Buffer): string {
  return openBytes(key, sealed, aad).toString('utf8');
}

/** `open` answering bytes. */
export function openBytes(key: Buffer, sealed: Sealed, aad: Buffer): Buffer {
  if (sealed.nonce.length !== NONCE_BYTES || sealed.tag.length !== TAG_BYTES) throw new Error('malformed ciphertext');
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(sealed.tag);
  return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]);
}

/**
 * A stable, non-secret name of a key: stored beside each value and in the key check, so a wrong key is
 * recognised without decrypting anything. An HMAC under the key itself, so it reveals nothing of it.
 */
export function keyFingerprint(key: Buffer): string {
  return createHmac('sha256', key).update('svc secrets key id v1').digest('hex').slice(0, 32);
}
