import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { problem } from '../../../shared/api/problem.js';

export type Clock = () => Date;

/** What a presigned URL is bound to: one file's content (its id, SHA-256 and revision) and one method. */
export interface SignedTarget {
  readonly fileId: string;
  readonly sha256: string;
  readonly revision: number;
  readonly method: 'GET';
}

/** The signing key from the setting, else one derived from the secrets key, so a deployment's daemons agree without another secret to share. */
export function signingKeyFrom(setting: Buffer | undefined, secretsKey: () => Promise<Buffer>): () => Promise<Buffer> {
  let derived: Promise<Buffer> | undefined;
  return () => {
    if (setting) return Promise.resolve(setting);
    derived ??= secretsKey().then((key) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'svc presigned file urls v1', 32)));
    return derived;
  };
}

/**
 * Presigned file URLs: `?expires=<epoch seconds>&signature=<HMAC-SHA256, base64url>` over the method, the
 * file's id, SHA-256 and revision, and the expiry. A URL made for other bytes (a file replaced since), another
 * file or method, or altered in any part does not verify; one past its expiry is refused as such.
 */
export class UrlSigner {
  constructor(
    private readonly key: () => Promise<Buffer>,
    private readonly now: Clock,
  ) {}

  async sign(target: SignedTarget, ttlSeconds: number): Promise<{ expires: number; signature: string }> {
    const expires = Math.floor(this.now().getTime() / 1000) + ttlSeconds;
    return { expires, signature: await this.#mac(target, expires) };
  }

  /** Throws 403 `signed_url_invalid` or `signed_url_expired`. */
  async verify(target: SignedTarget, expiresText: string | undefined, signature: string | undefined): Promise<void> {
    if (!expiresText || !signature || !/^\d{1,12}$/.test(expiresText)) throw invalid();
    const expires = Number(expiresText);
    const expected = Buffer.from(await this.#mac(target, expires));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    // Checked after the signature, so an altered expiry reads as altered, not as expired.
    if (this.now().getTime() / 1000 >= expires)
      throw problem('signed_url_expired', 'This download URL has expired.', { expires_at: new Date(expires * 1000).toISOString() });
  }

  async #mac(target: SignedTarget, expires: number): Promise<string> {
    const text = ['v1', target.method, target.fileId, target.sha256, String(target.revision), String(expires)].join('\n');
    return createHmac('sha256', await this.key())
      .update(text)
      .digest('base64url');
  }
}

function invalid() {
  return problem('signed_url_invalid', 'This download URL is not valid for this file.');
}
