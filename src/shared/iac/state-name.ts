/**
 * A managed IaC state's name, as it appears in `/iac-states/{name}/…` and in a run token's scope: a
 * letter or digit, then up to 127 letters, digits, `.`, `_` or `-` (no `/`, so the name is one path
 * segment and needs no encoding in a backend address).
 */
export const IAC_STATE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function isIacStateName(name: string): boolean {
  return IAC_STATE_NAME.test(name);
}
