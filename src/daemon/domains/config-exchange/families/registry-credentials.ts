import { z } from 'zod';
import { createRegistryCredentialBody } from '../../../../shared/api/registry.js';
import { OrgRowsRepo } from '../repos/org-rows-repo.js';
import { bodyIssues, orgTableFamily } from './org-table-family.js';

const item = z
  .object({
    registry: z.string().min(1).max(255),
    url: z.string().min(1).max(2048),
    username: z.string().min(1).max(255),
    password_ref: z.string().min(1).max(1024).describe('A secret reference, never a password'),
    description: z.string().max(2000).nullable().default(null),
  })
  .strict();
type Item = z.infer<typeof item>;

/** Logins to upstream registries (docs/registry.md), keyed by registry host; test results stay behind. */
export function registryCredentialsFamily() {
  return orgTableFamily<Item>({
    name: 'registry_credentials',
    summary: "The organization's upstream registry logins, keyed by registry host; the password as a secret reference.",
    item,
    repo: new OrgRowsRepo('registry_credentials'),
    columns: ['registry', 'url', 'username', 'password_ref', 'description'],
    keyOf: (i) => i.registry,
    where: (i) => ({ registry: i.registry }),
    check: (i) => bodyIssues(createRegistryCredentialBody, i),
    fromRow: (r) => r as Item,
    toRow: (i) => ({ ...i }),
    audit: { action: 'registry_credential:manage', resourceType: 'registry_credential' },
  });
}
