/** Wire shape of a personal access token's record (never its plaintext, except once at creation). */
export interface PatView {
  readonly id: string;
  readonly name: string;
  readonly token_prefix: string;
  readonly user: { readonly id: string; readonly username: string };
  readonly org: { readonly id: string; readonly slug: string };
  readonly expires_at: string | null;
  readonly last_used_at: string | null;
  readonly revoked_at: string | null;
  readonly created_at: string;
  readonly created_by: string | null;
}
