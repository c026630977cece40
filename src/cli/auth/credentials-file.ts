/**
 * The credentials file's shape, checked by hand: zod here cost every authenticated command about
 * 0.2 s of start-up (95 modules) to validate a dozen fields, so the CLI reads the file without it.
 */

/** How the stored credential was obtained; decides how it is renewed. */
export const LOGIN_METHODS = ['device', 'pkce', 'client_credentials', 'token'] as const;
export type LoginMethod = (typeof LOGIN_METHODS)[number];

export interface StoredProfile {
  readonly server: string;
  readonly issuer: string | null;
  readonly client_id: string | null;
  readonly method: LoginMethod;
  readonly access_token: string;
  readonly refresh_token: string | null;
  /** ISO 8601; null when unknown (a personal access token). */
  readonly expires_at: string | null;
  readonly token_type: string;
  readonly scope: string | null;
  readonly username: string | null;
  readonly updated_at: string;
}

export interface CredentialsFile {
  readonly version: 1;
  readonly profiles: Record<string, StoredProfile>;
}

const INVALID = Symbol('invalid');

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A string field; `fallback` stands in for a missing one (undefined: the field is required). */
function text(record: Record<string, unknown>, key: string, fallback?: string | null): string | null | typeof INVALID {
  const value = record[key];
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value === 'string') return value;
  if (value === null && fallback === null) return null;
  return INVALID;
}

/** One profile with its defaults filled in, or undefined when a field has the wrong type. */
export function parseStoredProfile(value: unknown): StoredProfile | undefined {
  if (!isObject(value)) return undefined;
  const fields = {
    server: text(value, 'server'),
    issuer: text(value, 'issuer', null),
    client_id: text(value, 'client_id', null),
    method: text(value, 'method'),
    access_token: text(value, 'access_token'),
    refresh_token: text(value, 'refresh_token', null),
    expires_at: text(value, 'expires_at', null),
    token_type: text(value, 'token_type', 'Bearer'),
    scope: text(value, 'scope', null),
    username: text(value, 'username', null),
    updated_at: text(value, 'updated_at'),
  };
  if (Object.values(fields).includes(INVALID)) return undefined;
  if (!(LOGIN_METHODS as readonly unknown[]).includes(fields.method)) return undefined;
  return fields as StoredProfile;
}

/** The file's profiles, each still unchecked, or undefined when it is not a credentials file of this version. */
export function parseProfilesOf(value: unknown): Record<string, unknown> | undefined {
  return isObject(value) && value.version === 1 && isObject(value.profiles) ? value.profiles : undefined;
}

/** The whole file, or undefined when it is not a credentials file of this version or a profile is invalid. */
export function parseCredentialsFile(value: unknown): CredentialsFile | undefined {
  const entries = parseProfilesOf(value);
  if (entries === undefined) return undefined;
  const profiles: Record<string, StoredProfile> = {};
  for (const [name, entry] of Object.entries(entries)) {
    const profile = parseStoredProfile(entry);
    if (profile === undefined) return undefined;
    profiles[name] = profile;
  }
  return { version: 1, profiles };
}
