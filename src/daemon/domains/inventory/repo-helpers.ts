/** A case-insensitive "contains" pattern in which `%`, `_` and `\` are literal characters. */
export function containsPattern(value: string): string {
  return `%${value.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
