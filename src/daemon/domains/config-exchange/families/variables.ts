import { z } from 'zod';
import { VARIABLE_NAME, VARIABLE_NAME_RULE, VARIABLE_TYPES, variableValueProblem } from '../../../../shared/variables/variable-rules.js';
import { changes } from '../../inventory/access.js';
import { defineFamily, orgOf, type FamilyContext } from '../family.js';
import type { VariablesRowsRepo } from '../repos/variables-rows-repo.js';

const item = z
  .object({
    name: z.string().regex(VARIABLE_NAME, VARIABLE_NAME_RULE),
    type: z.enum(VARIABLE_TYPES),
    value: z.unknown().describe('As the type says; a secret_ref holds a secret reference, never a value'),
    description: z.string().max(10_000).nullable().default(null),
  })
  .strict();
type Item = z.infer<typeof item>;

const fields = (i: Item) => ({ name: i.name, type: i.type, value_json: i.value ?? null, description: i.description });

/** The organization's live variables (docs/variables.md), keyed by name; audited as the variables routes audit. */
export function variablesFamily(repo: VariablesRowsRepo) {
  const record = (ctx: FamilyContext, eventType: string, id: string, name: string, details: Record<string, unknown>) =>
    ctx.audit({
      eventType,
      action: 'variable:manage',
      resourceType: 'variable',
      resourceId: id,
      outcome: 'success',
      orgId: orgOf(ctx).id,
      details: { name, ...details },
    });
  return defineFamily<Item>({
    name: 'variables',
    scope: 'org',
    dependsOn: [],
    summary: "The organization's variables with their values (a secret_ref variable holds a reference, never a secret).",
    item,
    keyOf: (i) => i.name,
    check(i) {
      const problem = variableValueProblem(i.type, i.value);
      return problem ? [{ path: 'value', message: problem }] : [];
    },
    async list(ctx) {
      const rows = await repo.live(ctx.db, orgOf(ctx).id);
      return rows.map((r) => ({ name: r.name, type: r.type as Item['type'], value: r.value_json, description: r.description }));
    },
    async create(ctx, i) {
      const id = await repo.insert(ctx.db, orgOf(ctx).id, fields(i), ctx.actor.sub);
      await record(ctx, 'entity.created', id, i.name, { snapshot: i });
    },
    async update(ctx, before, after) {
      const id = await repo.idOf(ctx.db, orgOf(ctx).id, before.name);
      await repo.update(ctx.db, id, fields(after), ctx.actor.sub);
      await record(ctx, 'entity.updated', id, after.name, { changes: changes(before, after, ['type', 'value', 'description']) });
    },
    async remove(ctx, i) {
      const id = await repo.idOf(ctx.db, orgOf(ctx).id, i.name);
      await repo.softDelete(ctx.db, id, ctx.actor.sub);
      await record(ctx, 'entity.deleted', id, i.name, {});
    },
  });
}
