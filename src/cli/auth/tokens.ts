/** The fields of a token endpoint answer the store keeps. */
export interface StoredTokens {
  readonly access_token: string;
  readonly refresh_token: string | null;
  readonly expires_at: string | null;
  readonly token_type: string;
  readonly scope: string | null;
}

export function toStoredTokens(
  response: { access_token: string; refresh_token?: string; expires_in?: number; token_type?: string; scope?: string },
  now = Date.now(),
): StoredTokens {
  return {
    access_token: response.access_token,
    refresh_token: response.refresh_token ?? null,
    expires_at: typeof response.expires_in === 'number' ? new Date(now + response.expires_in * 1000).toISOString() : null,
    token_type: response.token_type ?? 'Bearer',
    scope: response.scope ?? null,
  };
}
