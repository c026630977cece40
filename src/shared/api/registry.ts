import { z } from 'zod';
import { httpBaseUrl } from './http-url.js';
import { pageShape } from './query.js';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of the registry's routes: registry credentials (`/registry-credentials`), the proxy's
 * `GET /registry/authorize`, and the image routes (`/images/*`, `/platform/images/*`). The daemon
 * validates and documents with them; the CLI infers its types from them.
 */

/** The header the registry's proxy proves itself with on `GET /registry/authorize` (its value: SERVICE_REGISTRY_PROXY_SECRET). */
export const REGISTRY_PROXY_SECRET_HEADER = 'x-registry-proxy-secret';

/**
 * An upstream registry as its host name appears in a cache namespace (`orgs/<slug>/<registry>/…`): lowercase,
 * with a dot or `localhost`, as Docker tells a registry host from a path component (no port: a repository
 * name cannot hold a colon).
 */
const registryHost = z
  .string()
  .max(255)
  .regex(/^[a-z0-9]+(?:[.-][a-z0-9]+)*$/, 'a lowercase host name')
  .refine((host) => host.includes('.') || host === 'localhost', { message: 'must contain a dot, or be localhost' });

const passwordRef = z
  .string()
  .min(1)
  .max(1024)
  .describe("A secret reference: `<scheme>://orgs/<org_slug>/secrets/<path>[#key]` or `{{ secret('<name>') }}`");

export const registryCredentialPath = z.object({ credential_id: pathId });

export const createRegistryCredentialBody = z
  .object({
    registry: registryHost,
    url: httpBaseUrl.optional().describe('The API base; `https://<registry>` unless given (`docker.io`: `https://registry-1.docker.io`)'),
    username: z.string().min(1).max(255),
    password_ref: passwordRef,
    description: z.string().max(2000).nullable().optional(),
  })
  .strict();
export type CreateRegistryCredentialBody = z.infer<typeof createRegistryCredentialBody>;

export const updateRegistryCredentialBody = z
  .object({
    url: httpBaseUrl.optional(),
    username: z.string().min(1).max(255).optional(),
    password_ref: passwordRef.optional(),
    description: z.string().max(2000).nullable().optional(),
  })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'give at least one field' });
export type UpdateRegistryCredentialBody = z.infer<typeof updateRegistryCredentialBody>;

export const listRegistryCredentialsQuery = z
  .object({ registry: z.string().max(255).optional(), q: z.string().max(255).optional().describe('Registry contains'), ...pageShape })
  .strict();

export const registryCredential = z.object({
  id: z.string(),
  org_id: z.string(),
  registry: z.string(),
  url: z.string(),
  username: z.string(),
  password_ref: z.string(),
  description: z.string().nullable(),
  last_tested_at: z.string().nullable(),
  last_test_ok: z.boolean().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  created_by: z.string().nullable(),
  updated_by: z.string().nullable(),
});
export type RegistryCredential = z.infer<typeof registryCredential>;

export const registryCredentialList = z.object({
  items: z.array(registryCredential),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type RegistryCredentialList = z.infer<typeof registryCredentialList>;

export const REGISTRY_TEST_OUTCOMES = [
  'authenticated',
  'unauthorized',
  'secret_unresolvable',
  'address_not_allowed',
  'unreachable',
  'not_a_registry',
] as const;

export const registryCredentialTest = z.object({
  ok: z.boolean(),
  outcome: z.enum(REGISTRY_TEST_OUTCOMES),
  /** The upstream's last HTTP status, when it answered. */
  http_status: z.number().int().nullable(),
  detail: z.string(),
});
export type RegistryCredentialTest = z.infer<typeof registryCredentialTest>;

/** The proxy forwards the client's query string too; authorize reads only headers. */
export const registryAuthorizeQuery = z.object({}).loose();

/** Images. A namespace is `orgs/<slug>` or `global`; a repository is named in full (`orgs/acme/docker.io/library/alpine`). */
export const NAMESPACE_KINDS = ['organization', 'shared', 'global'] as const;

export const imageNamespace = z.object({
  name: z.string(),
  kind: z.enum(NAMESPACE_KINDS),
  repositories: z.number().int(),
  /** Whether the caller's organization may delete in it (its own namespace). */
  writable: z.boolean(),
});
export const imageNamespaceList = z.object({ items: z.array(imageNamespace) });
export type ImageNamespaceList = z.infer<typeof imageNamespaceList>;

export const listImageRepositoriesQuery = z
  .object({ namespace: z.string().max(255).optional(), q: z.string().max(255).optional().describe('Name contains'), ...pageShape })
  .strict();

export const imageRepositorySummary = z.object({
  name: z.string(),
  namespace: z.string(),
  /** A pull-through cache copy (`orgs/<slug>/<host>/…`): `upstream` names the host. */
  upstream: z.string().nullable(),
});
export const imageRepositoryList = z.object({
  items: z.array(imageRepositorySummary),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
export type ImageRepositoryList = z.infer<typeof imageRepositoryList>;

export const imageRepositoryQuery = z.object({ name: z.string().min(1).max(255) }).strict();
export const imageTagQuery = z.object({ name: z.string().min(1).max(255), tag: z.string().min(1).max(128) }).strict();

export const imageTag = z.object({ name: z.string(), digest: z.string().nullable() });
export const imageRepository = imageRepositorySummary.extend({ tags: z.array(imageTag) });
export type ImageRepository = z.infer<typeof imageRepository>;

export const imageUsage = z.object({
  namespaces: z.array(
    z.object({
      name: z.string(),
      org_id: z.string().nullable(),
      repositories: z.number().int(),
      tags: z.number().int(),
    }),
  ),
  repositories: z.number().int(),
  tags: z.number().int(),
});
export type ImageUsage = z.infer<typeof imageUsage>;

/** `GET /internal/runs/{run_id}/registry-credentials`: the run organization's upstream logins, passwords resolved. */
export const runRegistryCredentials = z.object({
  run_id: z.string(),
  org_id: z.string(),
  credentials: z
    .array(
      z.object({
        id: z.string(),
        registry: z.string().describe('The upstream host, as in the cache namespace (`docker.io`)'),
        url: z.string().describe('The API base the container engine logs in to'),
        username: z.string(),
        password: z.string().describe("The secret's value: never to be logged or echoed"),
      }),
    )
    .describe("The run organization's credentials whose password reference resolved, by registry"),
  unresolved: z
    .array(z.object({ id: z.string(), registry: z.string(), reason: z.string() }))
    .describe('Credentials whose password reference could not be read (left out of `credentials`)'),
});
export type RunRegistryCredentials = z.infer<typeof runRegistryCredentials>;
