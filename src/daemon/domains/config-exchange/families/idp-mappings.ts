import { z } from 'zod';
import { createIdpMappingBody } from '../../../../shared/api/idp-mappings.js';
import { ORG_ROLES } from '../../../../shared/tenancy/org-roles.js';
import { MAPPINGS_CHANNEL, notify } from '../../../db/channels.js';
import type { MappingIndex } from '../../../tenancy/mapping-index.js';
import { orgOf } from '../family.js';
import { OrgRowsRepo } from '../repos/org-rows-repo.js';
import { bodyIssues, orgTableFamily } from './org-table-family.js';

const item = z
  .object({
    claim: z.string().min(1).max(255),
    value: z.string().min(1).max(1024),
    role: z.enum(ORG_ROLES),
    is_active: z.boolean().default(true),
  })
  .strict();
type Item = z.infer<typeof item>;

/**
 * The organization's IdP group mappings (docs/idp-mappings-api.md), keyed `claim=value`. Each write is
 * announced as the mappings routes announce theirs, and this instance's mapping index is refreshed once
 * the apply commits.
 */
export function idpMappingsFamily(index: MappingIndex) {
  return orgTableFamily<Item>({
    name: 'idp_mappings',
    summary: "The organization's IdP group mappings, keyed `claim=value`: the role a login's group claim grants.",
    item,
    repo: new OrgRowsRepo('org_idp_mappings', [], false),
    columns: ['claim', 'value', 'role', 'is_active'],
    keyOf: (i) => `${i.claim}=${i.value}`,
    where: (i) => ({ claim: i.claim, value: i.value }),
    check: (i) => bodyIssues(createIdpMappingBody, i),
    fromRow: (r) => r as Item,
    toRow: (i) => ({ ...i }),
    audit: {
      action: 'org_idp_mapping:manage',
      resourceType: 'idp_mapping',
      events: { created: 'idp_mapping.created', updated: 'idp_mapping.updated', deleted: 'idp_mapping.deleted' },
    },
    async afterWrite(ctx) {
      await notify(ctx.db, MAPPINGS_CHANNEL, orgOf(ctx).id);
      ctx.afterCommit(() => index.refresh());
    },
  });
}
