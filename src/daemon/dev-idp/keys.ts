import { calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import type { JWK } from 'oidc-provider';

/** An RS256 signing key: the private JWK for oidc-provider's keystore and the key object for jose. */
export interface SigningKey {
  readonly kid: string;
  readonly privateJwk: JWK;
  readonly privateKey: CryptoKey;
}

export async function generateSigningKey(): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  // key_ops from WebCrypto would say only "sign", and oidc-provider then refuses the key for verification.
  const { kty, n, e, d, p, q, dp, dq, qi } = await exportJWK(privateKey);
  const bare = { kty, n, e, d, p, q, dp, dq, qi };
  const kid = await calculateJwkThumbprint({ kty, n, e });
  return { kid, privateKey, privateJwk: { ...bare, kid, alg: 'RS256', use: 'sig' } };
}
