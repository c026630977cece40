export interface DevIdpOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a random free port, kept for later start() calls. */
  port?: number;
  /** The API audience put into access tokens. Default 'service-api'. */
  audience?: string;
  /** Realm roles of the service-automation service account. Default ['operator']. */
  automationRoles?: string[];
}

/** Everything optional; the defaults make a valid token for the DEV_USERS admin. */
export interface MintOptions {
  sub?: string;
  username?: string;
  email?: string;
  realmRoles?: string[];
  /** resource_access, client id -> roles. Default: the realm roles under the audience. */
  clientRoles?: Record<string, string[]>;
  groups?: string[];
  /** Default [audience]; a string stays a string. */
  audience?: string | string[];
  issuer?: string;
  /** exp = now + this (negative: already expired). Default 300. */
  expiresInSeconds?: number;
  /** Default now. */
  iat?: number;
  /** Absent unless given. */
  nbf?: number;
  /** Merged into the payload last. */
  extra?: Record<string, unknown>;
  /** Claim names removed from the payload last (e.g. ['exp']). */
  omit?: string[];
}

export interface DevIdp {
  /** e.g. http://127.0.0.1:PORT (no trailing slash), stable across stop()/start(). */
  readonly issuer: string;
  readonly jwksUri: string;
  /** Signs a Keycloak-shaped RS256 access token with the current signing key (kid set), so it verifies against the published JWKS. */
  mintAccessToken(options?: MintOptions): Promise<string>;
  /**
   * Signs an arbitrary payload with the current private key. The header defaults to
   * { alg: 'RS256', typ: 'JWT', kid: <current> } and `header` is merged over it: `{ kid: 'nope' }`
   * for an unknown key, `{ kid: undefined }` for none. alg must suit an RSA key (RS*, PS*).
   */
  sign(payload: Record<string, unknown>, header?: Record<string, unknown>): Promise<string>;
  /** Makes a new RSA key the signing key; the previous keys stay published in the JWKS. Same port. */
  rotateKeys(): Promise<void>;
  /** Stops listening (the issuer then refuses connections). */
  stop(): Promise<void>;
  /** Listens again on the same port with the same keys, sessions and tokens. */
  start(): Promise<void>;
}
