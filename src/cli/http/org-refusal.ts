import { CliError, type ApiError } from '../errors.js';

/** A 403 of an organization-scoped route (the daemon's problem names the route's `scope`). */
export function isOrganizationRefusal(body: unknown): boolean {
  return (body as { code?: unknown; scope?: unknown } | null)?.code === 'forbidden' && (body as { scope?: unknown }).scope === 'org';
}

/** The organization a request names: the path's `/orgs/{org_ref}` (which the daemon reads first), else X-Org-Id. */
export function namedOrganization(
  request: { readonly path: string; readonly headers?: Record<string, string> },
  orgFlag: string | undefined,
): string | undefined {
  const inPath = /^\/?orgs\/([^/?#]+)/.exec(request.path)?.[1];
  if (inPath !== undefined) return decodeURIComponent(inPath);
  const header = Object.entries(request.headers ?? {}).find(([key]) => key.toLowerCase() === 'x-org-id')?.[1];
  return header ?? orgFlag;
}

interface Me {
  readonly realm_roles?: unknown;
  readonly memberships?: readonly { readonly org_id?: unknown; readonly slug?: unknown }[];
}

/**
 * The daemon refuses a non-admin alike for an organization that does not exist and for another
 * tenant's (403), so that nobody learns other tenants' names. The caller's own memberships
 * (`GET /auth/me`) are no secret to it: when none bears the name it gave, the refusal is "not found"
 * (exit 3), as the caller sees it; when one does, the caller lacks the role (exit 5, unchanged).
 * A platform admin is told 404 `org_not_found` by the daemon itself, so its refusals are kept.
 */
export async function organizationRefusal(error: ApiError, ref: string | undefined, fetchMe: () => Promise<Response>): Promise<CliError> {
  if (ref === undefined) return error;
  let me: Me;
  try {
    const response = await fetchMe();
    if (!response.ok) return error;
    me = (await response.json()) as Me;
  } catch {
    return error;
  }
  if (Array.isArray(me.realm_roles) && me.realm_roles.includes('admin')) return error;
  const wanted = ref.toLowerCase();
  const member = (me.memberships ?? []).some(
    (m) =>
      (typeof m.slug === 'string' && m.slug.toLowerCase() === wanted) ||
      (typeof m.org_id === 'string' && m.org_id.toLowerCase() === wanted),
  );
  if (member) return error;
  return new CliError('not_found', `organization ${ref} not found (or you are not a member of it)`, {
    code: error.code,
    status: error.status,
    ...(error.requestId === undefined ? {} : { requestId: error.requestId }),
  });
}
