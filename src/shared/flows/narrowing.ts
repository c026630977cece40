import type { FlowDefinition, FlowNetworkPolicy, FlowStep } from './definition.js';
import { EGRESS_OPENNESS, effectivePolicy } from './network-policy.js';
import { findHandler, narrowedFields } from './step-handlers/index.js';
import { sameJson } from './same-json.js';

/** The `restriction` a 403 `restricted_option` names. */
export type FlowRestriction = 'container_host_access' | 'egress_widening';

export interface RestrictedChange {
  readonly restriction: FlowRestriction;
  /** Where in the submitted definition: `steps[2].config.privileged`, `network_policy.egress_mode`. */
  readonly path: string;
  readonly message: string;
}

const EGRESS_KEYS = ['egress_mode', 'egress_allow', 'egress_deny'] as const;

/**
 * What in `next` only a platform admin may write, measured against `current` (the draft it replaces;
 * undefined for a new flow): host-access options a step introduces or changes, step egress wider than
 * the flow's network policy, and a flow policy wider than before. What `current` already held, unchanged,
 * is never counted, so an operator can edit other steps of a flow an admin made privileged.
 */
export function restrictedChanges(current: FlowDefinition | undefined, next: FlowDefinition): RestrictedChange[] {
  const before = new Map((current?.steps ?? []).map((s) => [s.id, s]));
  const policy = effectivePolicy(next.network_policy);
  const changes: RestrictedChange[] = [...policyWidening(current?.network_policy, next.network_policy)];
  next.steps.forEach((step, i) => {
    const previous = before.get(step.id);
    const kept = (key: string) =>
      previous !== undefined && previous.handler === step.handler && sameJson(previous.config[key], step.config[key]);
    for (const key of hostAccessKeys(step)) {
      if (isInert(step, key) || kept(key)) continue;
      changes.push({
        restriction: 'container_host_access',
        path: `steps[${i}].config.${key}`,
        message: `${key} reaches past the sandbox's isolation`,
      });
    }
    if (!hasEgressFields(step)) return;
    for (const widening of stepEgressWidening(step, policy, `steps[${i}].config`)) {
      if (!kept(widening.key)) changes.push({ restriction: 'egress_widening', path: widening.path, message: widening.message });
    }
  });
  return changes;
}

function hostAccessKeys(step: FlowStep): string[] {
  return narrowedFields(step)
    .filter((use) => use.narrowing === 'host_access')
    .map((use) => use.key);
}

function hasEgressFields(step: FlowStep): boolean {
  return (
    narrowedFields(step).some((use) => use.narrowing === 'egress') ||
    (findHandler(step.handler)?.fields.some((f) => f.narrowing === 'egress') ?? false)
  );
}

/** Absent, off, empty, or the handler's default: the option is not in use. */
function isInert(step: FlowStep, key: string): boolean {
  const value = step.config[key];
  if (value === undefined || value === null || value === false || value === '') return true;
  if (Array.isArray(value) && value.length === 0) return true;
  if (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0) return true;
  const field = findHandler(step.handler)?.fields.find((f) => f.key === key);
  return field !== undefined && field.default !== undefined && sameJson(field.default, value);
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

function stepEgressWidening(
  step: FlowStep,
  policy: Required<FlowNetworkPolicy>,
  base: string,
): { key: (typeof EGRESS_KEYS)[number]; path: string; message: string }[] {
  const found: { key: (typeof EGRESS_KEYS)[number]; path: string; message: string }[] = [];
  const rawMode = step.config.egress_mode;
  const mode = typeof rawMode === 'string' && rawMode in EGRESS_OPENNESS ? (rawMode as keyof typeof EGRESS_OPENNESS) : undefined;
  if (mode && EGRESS_OPENNESS[mode] > EGRESS_OPENNESS[policy.egress_mode]) {
    found.push({ key: 'egress_mode', path: `${base}.egress_mode`, message: `${mode} is more open than the flow's ${policy.egress_mode}` });
  }
  const stepMode = mode ?? policy.egress_mode;
  if (stepMode !== 'deny-all' && policy.egress_mode !== 'open') {
    strings(step.config.egress_allow).forEach((rule, j) => {
      if (!policy.egress_allow.includes(rule))
        found.push({ key: 'egress_allow', path: `${base}.egress_allow[${j}]`, message: `${rule} is not in the flow's allow list` });
    });
  }
  if (stepMode !== 'deny-all' && Array.isArray(step.config.egress_deny)) {
    const kept = new Set(strings(step.config.egress_deny));
    const dropped = policy.egress_deny.filter((rule) => !kept.has(rule));
    if (dropped.length > 0)
      found.push({ key: 'egress_deny', path: `${base}.egress_deny`, message: `drops the flow's deny rules ${dropped.join(', ')}` });
  }
  return found;
}

function policyWidening(current: FlowNetworkPolicy | undefined, next: FlowNetworkPolicy | undefined): RestrictedChange[] {
  if (sameJson(current ?? null, next ?? null)) return [];
  const was = effectivePolicy(current);
  const now = effectivePolicy(next);
  const widening = (path: string, message: string): RestrictedChange => ({ restriction: 'egress_widening', path, message });
  if (EGRESS_OPENNESS[now.egress_mode] > EGRESS_OPENNESS[was.egress_mode]) {
    return [widening('network_policy.egress_mode', `${now.egress_mode} is more open than ${was.egress_mode}`)];
  }
  const changes: RestrictedChange[] = [];
  if (now.egress_mode === 'allow-listed' && was.egress_mode === 'allow-listed') {
    now.egress_allow.forEach((rule, j) => {
      if (!was.egress_allow.includes(rule)) changes.push(widening(`network_policy.egress_allow[${j}]`, `${rule} was not allowed before`));
    });
  }
  if (now.egress_mode !== 'deny-all') {
    const dropped = was.egress_deny.filter((rule) => !now.egress_deny.includes(rule));
    if (dropped.length > 0) changes.push(widening('network_policy.egress_deny', `drops the deny rules ${dropped.join(', ')}`));
  }
  return changes;
}
