/** A bearer token the client may send, and the server it is for. */
export interface Credential {
  readonly accessToken: string;
  /** The server's URL; requests go there. */
  readonly server: string;
  /** What to do when the server refuses it (the error's hint): the exact `svc login …`, or what to do about SVC_TOKEN. */
  readonly refusedHint?: string;
}

/**
 * Where the client's bearer comes from (cli/cli's `AuthConfig`). The client knows nothing of profiles,
 * files, locks or prompts: the auth side implements this (auth/session.ts: SVC_TOKEN, else the stored
 * profile, renewed under the lock, a new login offered on a terminal), and sign-in and tests hand it a
 * fixed credential.
 */
export interface CredentialSource {
  /** The credential for the next request. */
  current(): Promise<Credential>;
  /** The server called the credential expired (401 `token_expired`): a renewed one, or undefined when it cannot be renewed. */
  renewed(): Promise<Credential | undefined>;
}

/** A credential that is what it is: never renewed (a token being checked, a test's). */
export function fixedCredential(credential: Credential): CredentialSource {
  return { current: async () => credential, renewed: async () => undefined };
}
