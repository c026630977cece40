import { z } from 'zod';
import {
  SECRET_KEY_PATTERN,
  SECRET_MAX_KEYS,
  SECRET_NAME_MAX,
  SECRET_NAME_PATTERN,
  SECRET_PATH_MAX,
  isSafeSecretPath,
} from '../../../../shared/secrets/names.js';
import { secretLocation } from '../../../../shared/secrets/reference.js';
import { defineFamily, orgOf, type FamilyContext } from '../family.js';
import type { SecretRow, SecretsRowsRepo } from '../repos/secrets-rows-repo.js';
import { refused, unresolved } from './references.js';

const item = z
  .object({
    name: z.string().max(SECRET_NAME_MAX).regex(SECRET_NAME_PATTERN),
    description: z.string().max(10_000).nullable().default(null),
    backend: z.string().min(1).max(64).describe("The backend's reference scheme (`builtin`)"),
    path: z.string().min(1).max(SECRET_PATH_MAX),
    keys: z
      .array(z.string().regex(SECRET_KEY_PATTERN))
      .max(SECRET_MAX_KEYS)
      .describe('Key NAMES only, sorted; values never travel in a bundle'),
  })
  .strict();
type Item = z.infer<typeof item>;

const FAMILY = 'secrets';
const sorted = (keys: Iterable<string>) => [...new Set(keys)].sort();

/**
 * The organization's secrets without their values: name, backend (by scheme), folder path, key names.
 * A secret created from a bundle holds no values: its keys are `declared_keys` until someone holding the
 * values sets them through the secrets API, and the plan lists them as `needs_values`.
 */
export function secretsFamily(repo: SecretsRowsRepo, secretsChanged: () => void) {
  const record = (
    ctx: FamilyContext,
    eventType: string,
    row: Pick<SecretRow, 'id' | 'name' | 'backend_id' | 'path'>,
    scheme: string,
    details: Record<string, unknown>,
  ) =>
    ctx.audit({
      eventType,
      action: 'secret:manage',
      resourceType: 'secret',
      resourceId: row.id,
      outcome: 'success',
      orgId: orgOf(ctx).id,
      details: { name: row.name, backend_id: row.backend_id, backend_scheme: scheme, path: row.path, ...details },
    });
  return defineFamily<Item>({
    name: FAMILY,
    scope: 'org',
    dependsOn: [],
    summary:
      "The organization's secrets: name, backend scheme, folder path and key names, never values (created ones need their values set).",
    item,
    keyOf: (i) => i.name,
    check(i) {
      const issues = [];
      if (!isSafeSecretPath(i.path))
        issues.push({ path: 'path', message: 'must be a relative folder path without empty, "." or ".." segments' });
      if (i.keys.join('\n') !== sorted(i.keys).join('\n')) issues.push({ path: 'keys', message: 'must be sorted and without repeats' });
      return issues;
    },
    needsValues: (before, after) => after.keys.filter((k) => !before?.keys.includes(k)),
    async list(ctx) {
      const rows = await repo.ofOrg(ctx.db, orgOf(ctx));
      return rows.map((r) => ({
        name: r.name,
        description: r.description,
        backend: r.backend_scheme,
        path: r.path,
        keys: sorted([...r.stored_keys, ...r.declared_keys]),
      }));
    },
    async create(ctx, i) {
      const org = orgOf(ctx);
      const backend = await repo.backendByScheme(ctx.db, i.backend);
      if (!backend) throw unresolved(FAMILY, i.name, 'backend', i.backend);
      if (await repo.folderTaken(ctx.db, org.id, backend.id, i.path))
        throw refused(FAMILY, i.name, 'folder_taken', 'another secret of the organization uses this folder of the backend');
      const row = { name: i.name, description: i.description, backend_id: backend.id, path: i.path, declared_keys: i.keys };
      const id = await repo.insert(ctx.db, org.id, row, ctx.actor.sub);
      await record(ctx, 'entity.created', { id, ...row }, i.backend, { keys: [], declared_keys: i.keys, adopted: false });
      ctx.afterCommit(secretsChanged);
    },
    async update(ctx, before, after) {
      const org = orgOf(ctx);
      if (before.backend !== after.backend || before.path !== after.path)
        throw refused(FAMILY, after.name, 'immutable', "a secret's backend and path are fixed; rename or remove it instead");
      const row = await repo.find(ctx.db, org, before.name);
      const dropped = row.stored_keys.filter((k) => !after.keys.includes(k));
      if (dropped.length > 0) await repo.deleteStoredKeys(ctx.db, row.backend_id, secretLocation(org.slug, row.path), dropped);
      await repo.update(ctx.db, row.id, { description: after.description, declared_keys: after.keys }, ctx.actor.sub);
      await record(ctx, 'entity.updated', row, after.backend, {
        keys_removed: sorted(dropped),
        description_changed: before.description !== after.description,
        declared_keys: after.keys,
      });
      ctx.afterCommit(secretsChanged);
    },
    async remove(ctx, i) {
      const org = orgOf(ctx);
      const row = await repo.find(ctx.db, org, i.name);
      await repo.deleteStoredKeys(ctx.db, row.backend_id, secretLocation(org.slug, row.path));
      await repo.delete(ctx.db, row.id);
      await record(ctx, 'entity.deleted', row, i.backend, {});
      ctx.afterCommit(secretsChanged);
    },
  });
}
