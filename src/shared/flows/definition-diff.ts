import type { FlowDefinition, FlowEdge, FlowStep } from './definition.js';
import { sameJson } from './same-json.js';

export interface StepChange {
  readonly id: string;
  /** Members of the step that differ: `name`, `handler`, `target_role`, `config`. */
  readonly fields: string[];
  /** Keys of `config` added, removed or changed. */
  readonly config_keys: string[];
}

export interface NamedChange {
  readonly name: string;
  /** Members that differ (`type`, `default`, `options`, `min_devices`, …). */
  readonly fields: string[];
}

export interface DefinitionDiff {
  readonly identical: boolean;
  readonly steps: {
    readonly added: { id: string; handler: string }[];
    readonly removed: { id: string; handler: string }[];
    readonly changed: StepChange[];
  };
  readonly edges: { readonly added: FlowEdge[]; readonly removed: FlowEdge[] };
  readonly inputs: { readonly added: string[]; readonly removed: string[]; readonly changed: NamedChange[] };
  readonly target_roles: { readonly added: string[]; readonly removed: string[]; readonly changed: NamedChange[] };
  readonly network_policy: {
    readonly changed: boolean;
    readonly from: FlowDefinition['network_policy'] | null;
    readonly to: FlowDefinition['network_policy'] | null;
  };
}

/** Keys whose values differ between two objects (present on one side only counts). */
function differingKeys(a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): string[] {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.filter((k) => !sameJson(a[k], b[k])).sort();
}

/** Items keyed by identity (step id, input name): added, removed, and changed with what changed. */
function byKey<T extends object>(from: readonly T[], to: readonly T[], key: (item: T) => string) {
  const before = new Map(from.map((item) => [key(item), item]));
  const after = new Map(to.map((item) => [key(item), item]));
  return {
    added: to.filter((item) => !before.has(key(item))),
    removed: from.filter((item) => !after.has(key(item))),
    both: to.filter((item) => before.has(key(item))).map((item) => [before.get(key(item))!, item] as const),
  };
}

function named<T extends { name: string }>(from: readonly T[], to: readonly T[]) {
  const { added, removed, both } = byKey(from, to, (item) => item.name);
  return {
    added: added.map((i) => i.name),
    removed: removed.map((i) => i.name),
    changed: both
      .map(([a, b]) => ({ name: b.name, fields: differingKeys(a as Record<string, unknown>, b as Record<string, unknown>) }))
      .filter((c) => c.fields.length > 0),
  };
}

/**
 * A structural diff, the way a reviewer reads a flow: steps by id (with the configuration keys that
 * changed), edges as pairs, inputs and target roles by name, and the network policy as a whole.
 */
export function diffDefinitions(from: FlowDefinition, to: FlowDefinition): DefinitionDiff {
  const steps = byKey<FlowStep>(from.steps, to.steps, (s) => s.id);
  const edgeKey = (e: FlowEdge) => `${e.from}\u0000${e.to}`;
  const edges = byKey<FlowEdge>(from.edges, to.edges, edgeKey);
  const changedSteps = steps.both
    .map(([a, b]): StepChange => {
      const fields = differingKeys({ ...a, config: undefined }, { ...b, config: undefined });
      const configKeys = differingKeys(a.config, b.config);
      return { id: b.id, fields: configKeys.length > 0 ? [...fields, 'config'].sort() : fields, config_keys: configKeys };
    })
    .filter((c) => c.fields.length > 0);
  const diff: DefinitionDiff = {
    identical: false,
    steps: {
      added: steps.added.map((s) => ({ id: s.id, handler: s.handler })),
      removed: steps.removed.map((s) => ({ id: s.id, handler: s.handler })),
      changed: changedSteps,
    },
    edges: { added: edges.added.map((e) => ({ from: e.from, to: e.to })), removed: edges.removed.map((e) => ({ from: e.from, to: e.to })) },
    inputs: named(from.inputs, to.inputs),
    target_roles: named(from.target_roles, to.target_roles),
    network_policy: {
      changed: !sameJson(from.network_policy ?? null, to.network_policy ?? null),
      from: from.network_policy ?? null,
      to: to.network_policy ?? null,
    },
  };
  return { ...diff, identical: sameJson(from, to) };
}
