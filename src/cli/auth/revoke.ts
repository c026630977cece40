import type { StoredProfile } from './store.js';

/** What became of a stored refresh token at the identity provider. */
export type Revocation =
  | { readonly outcome: 'nothing_to_revoke' }
  | { readonly outcome: 'revoked'; readonly issuer: string }
  /** The discovery document has no `revocation_endpoint`. */
  | { readonly outcome: 'unsupported'; readonly issuer: string }
  | { readonly outcome: 'failed'; readonly issuer: string; readonly reason: string };

/** Logout waits this long per request (discovery, revocation) for a provider that does not answer. */
const REVOCATION_TIMEOUT_SECONDS = 5;

/**
 * RFC 7009 revocation of the stored refresh token (`token_type_hint=refresh_token`), as the public
 * client that obtained it. The provider ends the grant with it (oidc-provider; Keycloak ends the
 * session), so the token no longer refreshes anywhere it may have been copied. Never throws: the
 * caller forgets the credential whatever the provider says.
 */
export async function revokeRefreshToken(stored: StoredProfile): Promise<Revocation> {
  const { refresh_token: token, issuer, client_id: clientId } = stored;
  if (token === null || issuer === null || clientId === null) return { outcome: 'nothing_to_revoke' };
  const { configureClient, oidc } = await import('./oidc.js');
  try {
    const config = await configureClient(issuer, clientId, undefined, REVOCATION_TIMEOUT_SECONDS);
    if (config.serverMetadata().revocation_endpoint === undefined) return { outcome: 'unsupported', issuer };
    await oidc.tokenRevocation(config, token, { token_type_hint: 'refresh_token' });
    return { outcome: 'revoked', issuer };
  } catch (err) {
    const error = (err as { error?: unknown }).error;
    return { outcome: 'failed', issuer, reason: typeof error === 'string' ? error : (err as Error).message };
  }
}
