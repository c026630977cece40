import * as oidc from 'openid-client';
import { CliError } from '../errors.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/** Plain http is accepted for a provider on this machine only (the embedded development provider). */
export function isLoopbackHttp(issuer: string): boolean {
  const url = new URL(issuer);
  return url.protocol === 'http:' && (LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname));
}

export type OidcConfiguration = oidc.Configuration;
export type TokenSet = oidc.TokenEndpointResponse;

/**
 * Discovers the provider and configures the client: a public client, or one with a secret (basic auth).
 * `timeoutSeconds` bounds discovery and every later request of the configuration (openid-client: 30).
 */
export async function configureClient(
  issuer: string,
  clientId: string,
  clientSecret?: string,
  timeoutSeconds?: number,
): Promise<oidc.Configuration> {
  try {
    const auth = clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(clientSecret);
    const options = {
      ...(isLoopbackHttp(issuer) ? { execute: [oidc.allowInsecureRequests] } : {}),
      ...(timeoutSeconds === undefined ? {} : { timeout: timeoutSeconds }),
    };
    return await oidc.discovery(new URL(issuer), clientId, undefined, auth, options);
  } catch (err) {
    throw new CliError('error', `cannot discover the identity provider at ${issuer}: ${(err as Error).message}`, { cause: err });
  }
}

export { oidc };
