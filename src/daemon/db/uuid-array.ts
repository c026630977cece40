/** UUIDs as PostgreSQL's array text (`{a,b}`), for a `uuid[]` value; UUIDs need no quoting in it. */
export function uuidArrayText(ids: readonly string[]): string;
export function uuidArrayText(ids: readonly string[] | null | undefined): string | null;
export function uuidArrayText(ids: readonly string[] | null | undefined): string | null {
  return ids ? `{${ids.join(',')}}` : null;
}
