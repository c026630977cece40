import type { FlowDefinition } from './definition.js';
import { templateExpressions, TEMPLATE_PATH } from './template-scan.js';

/**
 * What a step's templates may name (the worker's template context, src/worker/templates.ts), as names
 * and types only: an editor's completion list and the check of a template text. Never values.
 */

export type ContextNamespace = 'inputs' | 'params' | 'targets' | 'steps' | 'vars' | 'variables' | 'run';

export interface ContextName {
  /** The template path (`inputs.region`, `steps.prep.outputs`, `variables.ntp_server`). */
  readonly path: string;
  readonly namespace: ContextNamespace;
  /** The JSON type the path gives (`any` when only the run knows). */
  readonly type: string;
  readonly description: string;
}

export interface ContextVariable {
  readonly name: string;
  /** The JSON type a template reading it gets. */
  readonly kind: string;
}

export const NAMESPACES: readonly { name: ContextNamespace; description: string; open: boolean }[] = [
  { name: 'inputs', description: "The run's params, by input name", open: false },
  { name: 'params', description: 'Another name for inputs', open: false },
  { name: 'targets', description: 'Device ids of a target role (an array)', open: false },
  { name: 'steps', description: "An earlier step's outputs: steps.<step_id>.outputs.<key> (the keys are the step's)", open: true },
  { name: 'vars', description: "The run's variables a step set (run_vars), as they are when the step starts", open: true },
  { name: 'variables', description: "The organization's variables (and the shared organization's), by name", open: false },
  { name: 'run', description: 'The run: id, name, workflow_id, attempt', open: false },
];

const RUN_FIELDS: Readonly<Record<string, string>> = { id: 'string', name: 'string', workflow_id: 'string', attempt: 'integer' };

const INPUT_VALUE: Readonly<Record<string, string>> = {
  string: 'string',
  text: 'string',
  integer: 'integer',
  number: 'number',
  boolean: 'boolean',
  select: 'string',
  multiselect: 'array',
  json: 'any',
};

/** The steps that run before `stepId` (its ancestors through the edges); every step when none is named is not asked. */
export function upstreamSteps(definition: Pick<FlowDefinition, 'edges'>, stepId: string): Set<string> {
  const parents = new Map<string, string[]>();
  for (const edge of definition.edges) parents.set(edge.to, [...(parents.get(edge.to) ?? []), edge.from]);
  const seen = new Set<string>();
  const stack = [...(parents.get(stepId) ?? [])];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(parents.get(id) ?? []));
  }
  return seen;
}

/** Every name a template of `stepId` (or of a flow with no step named: no step outputs) may use. */
export function contextNames(
  definition: FlowDefinition | undefined,
  stepId: string | undefined,
  variables: readonly ContextVariable[],
): ContextName[] {
  const names: ContextName[] = [];
  for (const input of definition?.inputs ?? []) {
    const description = input.label ?? input.description ?? `input (${input.type})`;
    names.push({ path: `inputs.${input.name}`, namespace: 'inputs', type: INPUT_VALUE[input.type] ?? 'any', description });
    names.push({ path: `params.${input.name}`, namespace: 'params', type: INPUT_VALUE[input.type] ?? 'any', description });
  }
  for (const role of definition?.target_roles ?? [])
    names.push({ path: `targets.${role.name}`, namespace: 'targets', type: 'array', description: role.description ?? 'device ids' });
  if (definition && stepId !== undefined) {
    const upstream = upstreamSteps(definition, stepId);
    for (const step of definition.steps.filter((s) => upstream.has(s.id)))
      names.push({ path: `steps.${step.id}.outputs`, namespace: 'steps', type: 'object', description: `outputs of ${step.handler}` });
  }
  names.push({ path: 'vars', namespace: 'vars', type: 'object', description: 'run variables set by earlier steps' });
  for (const variable of variables)
    names.push({ path: `variables.${variable.name}`, namespace: 'variables', type: variable.kind, description: 'organization variable' });
  for (const [field, type] of Object.entries(RUN_FIELDS))
    names.push({ path: `run.${field}`, namespace: 'run', type, description: `the run's ${field}` });
  return names;
}

export interface TemplateIssue {
  readonly expression: string;
  readonly offset: number;
  readonly code: 'not_a_path' | 'unknown_namespace' | 'unknown_name' | 'step_not_upstream';
  readonly message: string;
}

export interface TemplateCheck {
  readonly references: { expression: string; offset: number; namespace: string; type: string }[];
  readonly issues: TemplateIssue[];
}

/**
 * Checks each `{{ … }}` of `text` against the names: a path (no filters or calls: the worker renders
 * nothing else), a known namespace, and a name it holds; inside an open namespace (`steps.<id>.outputs.…`,
 * `vars.…`) the rest is the run's to know. `stepIds` are the flow's steps, to tell an unknown step from
 * one that does not run before this one.
 */
export function checkTemplate(text: string, names: readonly ContextName[], stepIds: ReadonlySet<string>): TemplateCheck {
  const references: TemplateCheck['references'] = [];
  const issues: TemplateIssue[] = [];
  for (const { expression, offset } of templateExpressions(text)) {
    const fail = (code: TemplateIssue['code'], message: string) => issues.push({ expression, offset, code, message });
    if (!TEMPLATE_PATH.test(expression)) {
      fail('not_a_path', 'only a dotted path is rendered (no filters, calls or secret() here: use a secret_ref variable)');
      continue;
    }
    const segments = expression.split('.');
    const namespace = NAMESPACES.find((n) => n.name === segments[0]);
    if (!namespace) {
      fail('unknown_namespace', `must start with one of ${NAMESPACES.map((n) => n.name).join(', ')}`);
      continue;
    }
    if (segments.length === 1) {
      references.push({ expression, offset, namespace: namespace.name, type: 'object' });
      continue;
    }
    const match = names.find((n) => expression === n.path || expression.startsWith(`${n.path}.`) || n.path.startsWith(`${expression}.`));
    if (match) {
      const type = expression === match.path ? match.type : match.path.startsWith(`${expression}.`) ? 'object' : 'any';
      references.push({ expression, offset, namespace: namespace.name, type });
      continue;
    }
    if (namespace.name === 'steps' && segments[1] !== undefined && stepIds.has(segments[1]))
      fail('step_not_upstream', `step ${segments[1]} does not run before this one (no edge path leads from it)`);
    else fail('unknown_name', `${namespace.name} has no ${segments.slice(1).join('.') || 'such name'} here`);
  }
  return { references, issues };
}
