import type { FlowDefinition, FlowStep } from '../shared/flows/definition.js';

/**
 * The order the worker runs a definition's steps in. An edge `{from, to}` means `to` runs after `from`
 * (definition.ts); a step runs once every predecessor has succeeded. The worker runs one step at a time,
 * so among the steps that are ready it takes the one listed first in the definition: the order is a
 * topological order, stable with respect to how the author listed the steps. A committed definition has
 * no cycle (graphIssues refuses one); should one be handed over anyway, its steps are never ready and
 * `executionOrder` reports them as `unreachable`.
 */
export function executionOrder(definition: Pick<FlowDefinition, 'steps' | 'edges'>): { order: FlowStep[]; unreachable: FlowStep[] } {
  const predecessors = new Map<string, Set<string>>(definition.steps.map((step) => [step.id, new Set<string>()]));
  for (const edge of definition.edges) predecessors.get(edge.to)?.add(edge.from);
  const done = new Set<string>();
  const order: FlowStep[] = [];
  for (;;) {
    const next = definition.steps.find((step) => !done.has(step.id) && [...predecessors.get(step.id)!].every((p) => done.has(p)));
    if (!next) break;
    done.add(next.id);
    order.push(next);
  }
  return { order, unreachable: definition.steps.filter((step) => !done.has(step.id)) };
}

/** Steps no edge leaves: what the run's outputs come from (see the executor). */
export function sinkSteps(definition: Pick<FlowDefinition, 'steps' | 'edges'>): Set<string> {
  const sources = new Set(definition.edges.map((edge) => edge.from));
  return new Set(definition.steps.filter((step) => !sources.has(step.id)).map((step) => step.id));
}
