/**
 * What a registry request asks for, read from the method and URI the registry's proxy forwards to
 * `GET /registry/authorize` (distribution's HTTP API V2, OCI distribution 1.1). Pure: the daemon decides
 * on the answer, the tests hold the table.
 */

export type RegistryAction = 'pull' | 'push';

export interface RepositoryAccess {
  readonly repository: string;
  readonly action: RegistryAction;
}

export type RegistryRequest =
  /** `/v2/`: the API version check every client makes first; any live token may. */
  | { readonly kind: 'base' }
  /** Every access listed is needed (a cross-repository mount pushes into one and pulls from another). */
  | {
      readonly kind: 'access';
      readonly needs: readonly RepositoryAccess[];
      /** A manifest PUT: the push publishing `reference` (a tag or digest), the one request of a push worth a record. */
      readonly publishes?: string;
    }
  /** Never allowed to a run token: deletes, the catalogue listing, and whatever the API does not define. */
  | { readonly kind: 'refused'; readonly reason: 'delete' | 'catalog' | 'unknown' };

/** A repository name as distribution's reference grammar has it: lowercase components joined by `/`. */
const COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const NAME = `${COMPONENT}(?:/${COMPONENT})*`;
const DIGEST = '[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+';
const TAG = '[A-Za-z0-9_][A-Za-z0-9._-]{0,127}';
const REPOSITORY_NAME = new RegExp(`^${NAME}$`);

const ROUTES: readonly { readonly pattern: RegExp; readonly read: readonly string[]; readonly write: readonly string[] }[] = [
  { pattern: new RegExp(`^/v2/(${NAME})/tags/list$`), read: ['GET', 'HEAD'], write: [] },
  { pattern: new RegExp(`^/v2/(${NAME})/manifests/(${TAG}|${DIGEST})$`), read: ['GET', 'HEAD'], write: ['PUT'] },
  { pattern: new RegExp(`^/v2/(${NAME})/blobs/${DIGEST}$`), read: ['GET', 'HEAD'], write: [] },
  { pattern: new RegExp(`^/v2/(${NAME})/referrers/${DIGEST}$`), read: ['GET', 'HEAD'], write: [] },
  // An upload session: starting it (POST), its status (GET), its chunks (PATCH) and its end (PUT) are all push.
  { pattern: new RegExp(`^/v2/(${NAME})/blobs/uploads/$`), read: [], write: ['POST'] },
  { pattern: new RegExp(`^/v2/(${NAME})/blobs/uploads/[A-Za-z0-9_=-]+$`), read: [], write: ['GET', 'HEAD', 'PATCH', 'PUT'] },
];

/** True when `name` is a well-formed repository name. */
export function isRepositoryName(name: string): boolean {
  return name.length <= 255 && REPOSITORY_NAME.test(name);
}

/** Maps the proxy's original method and URI (path and query as the client sent them) to what they ask for. */
export function readRegistryRequest(method: string, uri: string): RegistryRequest {
  const queryAt = uri.indexOf('?');
  const path = queryAt === -1 ? uri : uri.slice(0, queryAt);
  const query = new URLSearchParams(queryAt === -1 ? '' : uri.slice(queryAt + 1));
  const verb = method.toUpperCase();
  if (verb === 'DELETE') return { kind: 'refused', reason: 'delete' };
  if (path === '/v2/' || path === '/v2') return verb === 'GET' || verb === 'HEAD' ? { kind: 'base' } : unknown();
  if (path === '/v2/_catalog' || path.startsWith('/v2/_catalog?')) return { kind: 'refused', reason: 'catalog' };
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    const repository = match[1]!;
    if (repository.length > 255) return unknown();
    if (route.read.includes(verb)) return { kind: 'access', needs: [{ repository, action: 'pull' }] };
    if (!route.write.includes(verb)) return unknown();
    const needs: RepositoryAccess[] = [{ repository, action: 'push' }];
    if (match[2] !== undefined) return { kind: 'access', needs, publishes: match[2] };
    // A cross-repository mount (`?mount=<digest>&from=<repo>`) copies a blob out of `from`: it needs pull there.
    const from = verb === 'POST' ? query.get('from') : null;
    if (from !== null) {
      if (!isRepositoryName(from)) return unknown();
      needs.push({ repository: from, action: 'pull' });
    }
    return { kind: 'access', needs };
  }
  return unknown();
}

function unknown(): RegistryRequest {
  return { kind: 'refused', reason: 'unknown' };
}
