import type { FlowDefinition, FlowStep } from './definition.js';
import type { DefinitionIssue } from './definition-issues.js';

export const STEP_ID = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Handler fields that name another step of the same run by id. The named step must exist and run
 * before (be upstream of) the step naming it; where the spec says which handler it must be, that too.
 */
const STEP_REFERENCES: Readonly<Record<string, readonly { key: string; handler?: string }[]>> = {
  'evidence.assert': [{ key: 'artifact_step_id', handler: 'netcli.collect_evidence' }],
  'evidence.compare': [{ key: 'precheck_step_id' }, { key: 'postcheck_step_id' }],
  'iac.apply': [{ key: 'plan_step', handler: 'iac.plan' }],
};

/** Handler fields that name a target role of the flow (besides the step's own `target_role`). */
const ROLE_REFERENCES: Readonly<Record<string, readonly string[]>> = {
  'evidence.assert': ['target_role'],
};

const isTemplate = (value: string) => value.includes('{{');

/** Step ids, edges (existing ends, no self-edge, no duplicate, no cycle) and what steps refer to. */
export function graphIssues(def: FlowDefinition): DefinitionIssue[] {
  const issues: DefinitionIssue[] = [];
  if (def.steps.length === 0) issues.push({ path: 'steps', message: 'a flow needs at least one step', code: 'no_steps' });

  const steps = new Map<string, FlowStep>();
  def.steps.forEach((step, i) => {
    if (!STEP_ID.test(step.id)) {
      issues.push({ path: `steps[${i}].id`, message: 'must match ^[a-z][a-z0-9_]{0,63}$', code: 'invalid_id' });
    } else if (steps.has(step.id)) {
      issues.push({ path: `steps[${i}].id`, message: `another step already has the id "${step.id}"`, code: 'duplicate_id' });
    } else {
      steps.set(step.id, step);
    }
  });

  const successors = new Map<string, { to: string; index: number }[]>();
  const predecessors = new Map<string, string[]>();
  const seen = new Set<string>();
  def.edges.forEach((edge, i) => {
    let usable = true;
    for (const end of ['from', 'to'] as const) {
      if (!steps.has(edge[end])) {
        issues.push({ path: `edges[${i}].${end}`, message: `no step has the id "${edge[end]}"`, code: 'unknown_step' });
        usable = false;
      }
    }
    if (edge.from === edge.to) {
      issues.push({ path: `edges[${i}]`, message: 'a step cannot follow itself', code: 'self_edge' });
      return;
    }
    const key = `${edge.from}\u0000${edge.to}`;
    if (seen.has(key)) {
      issues.push({ path: `edges[${i}]`, message: `the edge ${edge.from} -> ${edge.to} is listed twice`, code: 'duplicate_edge' });
      return;
    }
    seen.add(key);
    if (!usable) return;
    successors.set(edge.from, [...(successors.get(edge.from) ?? []), { to: edge.to, index: i }]);
    predecessors.set(edge.to, [...(predecessors.get(edge.to) ?? []), edge.from]);
  });

  issues.push(...cycleIssues([...steps.keys()], successors));

  const roles = new Set(def.target_roles.map((r) => r.name));
  def.steps.forEach((step, i) => {
    if (step.target_role !== undefined && step.target_role !== null && step.target_role !== '' && !roles.has(step.target_role)) {
      issues.push({
        path: `steps[${i}].target_role`,
        message: `no target role is named "${step.target_role}"`,
        code: 'unknown_target_role',
      });
    }
    for (const key of ROLE_REFERENCES[step.handler] ?? []) {
      const value = step.config[key];
      if (typeof value === 'string' && value !== '' && !isTemplate(value) && !roles.has(value)) {
        issues.push({ path: `steps[${i}].config.${key}`, message: `no target role is named "${value}"`, code: 'unknown_target_role' });
      }
    }
    for (const ref of STEP_REFERENCES[step.handler] ?? []) {
      const value = step.config[ref.key];
      if (typeof value !== 'string' || value === '' || isTemplate(value)) continue;
      const path = `steps[${i}].config.${ref.key}`;
      const named = steps.get(value);
      if (!named) issues.push({ path, message: `no step has the id "${value}"`, code: 'unknown_step' });
      else if (ref.handler && named.handler !== ref.handler)
        issues.push({ path, message: `must name a ${ref.handler} step`, code: 'wrong_step_kind' });
      else if (!upstreamOf(step.id, predecessors).has(value))
        issues.push({ path, message: `the step "${value}" does not run before this one (add an edge path from it)`, code: 'not_upstream' });
    }
  });
  return issues;
}

/** One issue per edge that closes a cycle (a back edge of a depth-first walk), naming the cycle. */
function cycleIssues(ids: readonly string[], successors: ReadonlyMap<string, readonly { to: string; index: number }[]>): DefinitionIssue[] {
  const issues: DefinitionIssue[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const trail: string[] = [];
  const visit = (id: string): void => {
    state.set(id, 'open');
    trail.push(id);
    for (const { to, index } of successors.get(id) ?? []) {
      const mark = state.get(to);
      if (mark === 'open') {
        const cycle = [...trail.slice(trail.indexOf(to)), to].join(' -> ');
        issues.push({ path: `edges[${index}]`, message: `closes the cycle ${cycle}`, code: 'cycle' });
      } else if (mark === undefined) {
        visit(to);
      }
    }
    trail.pop();
    state.set(id, 'done');
  };
  for (const id of ids) if (!state.has(id)) visit(id);
  return issues;
}

function upstreamOf(id: string, predecessors: ReadonlyMap<string, readonly string[]>): Set<string> {
  const found = new Set<string>();
  const queue = [...(predecessors.get(id) ?? [])];
  while (queue.length > 0) {
    const next = queue.pop()!;
    if (found.has(next)) continue;
    found.add(next);
    queue.push(...(predecessors.get(next) ?? []));
  }
  return found;
}
