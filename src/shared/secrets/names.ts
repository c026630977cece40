/**
 * Naming rules of secrets, shared by the daemon (validation) and clients. A name doubles as the default
 * path of the secret's folder in its backend, so it follows path rules too: segments separated by `/`,
 * none empty, `.` or `..` (a path must never climb out of the organization's prefix).
 */
export const SECRET_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;
export const SECRET_NAME_MAX = 255;
export const SECRET_PATH_MAX = 1024;

/** A key of a secret's folder: an identifier, so it can become an environment variable or a file name. */
export const SECRET_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;
/** Largest value, in UTF-8 bytes. */
export const SECRET_VALUE_MAX_BYTES = 64 * 1024;
/** Most keys one secret's folder may hold. */
export const SECRET_MAX_KEYS = 256;

/** True when `path` is a relative folder path: the name pattern, no empty, `.` or `..` segment. */
export function isSafeSecretPath(path: string): boolean {
  if (!SECRET_NAME_PATTERN.test(path)) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}
