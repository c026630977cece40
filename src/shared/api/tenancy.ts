/** Wire shapes of the tenancy routes, shared by the daemon's handlers and the CLI. */

export interface OrgView {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
  readonly description: string | null;
  readonly is_active: boolean;
  readonly is_default: boolean;
  readonly is_shared: boolean;
  readonly settings: Record<string, unknown>;
  readonly created_at: string;
  readonly updated_at: string;
}

/** How the caller comes to see an organization in the list. */
export type OrgAccess = 'member' | 'shared' | 'platform_admin';

export interface OrgListItem extends OrgView {
  readonly role: string | null;
  readonly source: 'manual' | 'idp' | null;
  readonly access: OrgAccess;
}

export interface MemberView {
  readonly user_id: string;
  readonly username: string;
  readonly email: string | null;
  readonly role: string;
  readonly source: 'manual' | 'idp';
  readonly created_at: string;
  readonly updated_at: string;
}

/** A page of an offset-paginated list. */
export interface Page<T> {
  readonly items: T[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
}
