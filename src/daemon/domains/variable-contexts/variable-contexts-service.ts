import type { TemplateValidation, VariableContext, VariableContexts } from '../../../shared/api/variable-contexts.js';
import { problems } from '../../../shared/api/problems.js';
import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { checkTemplate, contextNames, NAMESPACES, type ContextVariable } from '../../../shared/flows/template-context.js';
import { variableValueKind, type VariableType } from '../../../shared/variables/variable-rules.js';
import type { OrgAccessRepo } from '../../authz/org-access-repo.js';
import type { FlowCaller } from '../flows/flow-access.js';
import type { FlowsModule } from '../flows/module.js';
import type { VariablesRepo } from '../variables/variables-repo.js';

type Revision = number | 'draft';

export interface FlowPoint {
  readonly flow_id?: string | undefined;
  readonly step_id?: string | undefined;
  readonly version?: Revision | undefined;
}

/**
 * The editor's variable contexts (`variable_context:view`): what a template may name at a point of a
 * flow, and the check of a template text against it. It reads names and types (inputs, target roles,
 * steps, variables), never a value; the flow through the flows' tenancy, variables of the readable
 * organizations.
 */
export class VariableContextsService {
  constructor(
    private readonly flows: FlowsModule['definitions'],
    private readonly access: OrgAccessRepo,
    private readonly variables: VariablesRepo,
  ) {}

  async overview(caller: FlowCaller, page: { q?: string | undefined; limit: number; offset: number }): Promise<VariableContexts> {
    const orgIds = await this.access.readableOrgIds(caller.org.id);
    const { rows, total } = await this.variables.list({
      orgId: caller.org.id,
      orgIds,
      q: page.q,
      includeDeleted: false,
      limit: page.limit,
      offset: page.offset,
    });
    return {
      namespaces: NAMESPACES.map((n) => ({ ...n })),
      variables: rows.map((row) => ({
        name: row.name,
        type: row.type,
        value_type: variableValueKind(row.type),
        shared: row.org_id !== caller.org.id,
        description: row.description,
      })),
      total,
      limit: page.limit,
      offset: page.offset,
    };
  }

  async context(caller: FlowCaller, point: FlowPoint): Promise<VariableContext> {
    const { definition, version } = await this.#point(caller, point);
    const names = contextNames(definition, point.step_id, await this.#variables(caller));
    return { flow_id: point.flow_id ?? null, version, step_id: point.step_id ?? null, names };
  }

  async validate(caller: FlowCaller, template: string, point: FlowPoint): Promise<TemplateValidation> {
    const { definition } = await this.#point(caller, point);
    const names = contextNames(definition, point.step_id, await this.#variables(caller));
    const checked = checkTemplate(template, names, new Set(definition?.steps.map((s) => s.id) ?? []));
    return { valid: checked.issues.length === 0, ...checked };
  }

  /** The flow's definition at the point (the draft unless a version is named); its step must exist. */
  async #point(caller: FlowCaller, point: FlowPoint): Promise<{ definition: FlowDefinition | undefined; version: Revision | null }> {
    if (point.flow_id === undefined) return { definition: undefined, version: null };
    const { version, definition } = await this.flows.definitionOf(caller, point.flow_id, point.version ?? 'draft');
    if (!definition) throw problems.resourceNotFound('Flow version');
    if (point.step_id !== undefined && !definition.steps.some((s) => s.id === point.step_id))
      throw problems.validation([{ path: 'step_id', message: 'the flow has no step of this id' }]);
    return { definition, version: version ?? null };
  }

  /** Live variables of the readable organizations, the active one's winning a name: names and kinds only. */
  async #variables(caller: FlowCaller): Promise<ContextVariable[]> {
    const rows = await this.variables.liveNames(await this.access.readableOrgIds(caller.org.id));
    const byName = new Map<string, ContextVariable & { own: boolean }>();
    for (const row of rows) {
      const own = row.org_id === caller.org.id;
      if (!byName.get(row.name)?.own) byName.set(row.name, { name: row.name, kind: variableValueKind(row.type as VariableType), own });
    }
    return [...byName.values()].map(({ name, kind }) => ({ name, kind }));
  }
}
