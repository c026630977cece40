import { describe, expect, it } from 'vitest';
import { diffDefinitions } from '../src/shared/flows/definition-diff.js';
import { parseDefinitionShape, validateDefinition } from '../src/shared/flows/definition-schema.js';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { restrictedChanges } from '../src/shared/flows/narrowing.js';

const sleep = (id: string, seconds = 5) => ({ id, handler: 'general.sleep', config: { seconds } });
const container = (id: string, config: Record<string, unknown> = {}) => ({
  id,
  handler: 'container.run',
  config: { image: 'alpine:3.20', ...config },
});

function def(partial: Partial<FlowDefinition>): FlowDefinition {
  return { steps: [], edges: [], inputs: [], target_roles: [], ...partial };
}

const codesAt = (issues: { path: string; code: string }[]) => issues.map((i) => `${i.path} ${i.code}`).sort();

describe('flow definition validation', () => {
  it('accepts a well-formed graph', () => {
    expect(
      validateDefinition({
        steps: [sleep('wait'), { ...container('run'), target_role: 'core' }],
        edges: [{ from: 'wait', to: 'run' }],
        inputs: [{ name: 'ticket', type: 'string', pattern: 'CHG[0-9]+', default: 'CHG1' }],
        target_roles: [{ name: 'core', min_devices: 1, max_devices: 4 }],
        network_policy: { egress_mode: 'allow-listed', egress_allow: ['10.0.0.0/8:443/tcp'] },
      }),
    ).toEqual([]);
  });

  it('reports only the shape of a malformed definition, with JSON paths', () => {
    const issues = validateDefinition({ steps: [{ id: 'a', handler: 7 }], edges: 'x' });
    expect(codesAt(issues)).toEqual(['edges invalid_shape', 'steps[0].handler invalid_shape']);
    expect(parseDefinitionShape({ steps: [], surprise: true }).ok).toBe(false);
  });

  it('reports ids, edges, cycles and references at their paths', () => {
    const issues = validateDefinition({
      steps: [
        sleep('a'),
        sleep('b'),
        sleep('a'),
        sleep('Bad-Id'),
        { id: 'c', handler: 'general.sleep', config: { seconds: 1 }, target_role: 'edge' },
      ],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'a' },
        { from: 'a', to: 'a' },
        { from: 'a', to: 'b' },
        { from: 'a', to: 'ghost' },
      ],
    });
    expect(codesAt(issues)).toEqual([
      'edges[1] cycle',
      'edges[2] self_edge',
      'edges[3] duplicate_edge',
      'edges[4].to unknown_step',
      'steps[2].id duplicate_id',
      'steps[3].id invalid_id',
      'steps[4].target_role unknown_target_role',
    ]);
  });

  it("checks an approval gate's approver_role against the organization roles", () => {
    const gated = (id: string, approver_role: string | null) => ({ ...sleep(id), approval: { approver_role } });
    const issues = validateDefinition({
      steps: [gated('a', 'approver'), gated('b', 'admin'), gated('c', null), gated('d', 'approvers'), gated('e', 'Admin')],
      edges: [],
    });
    expect(codesAt(issues)).toEqual([
      'steps[3].approval.approver_role unknown_approver_role',
      'steps[4].approval.approver_role unknown_approver_role',
    ]);
  });

  it('checks step references: existence, kind and that they run before', () => {
    const issues = validateDefinition({
      steps: [
        { id: 'collect', handler: 'netcli.collect_evidence', config: { commands: ['show version'] } },
        { id: 'check', handler: 'evidence.assert', config: { artifact_step_id: 'collect' } },
        { id: 'late', handler: 'evidence.assert', config: { artifact_step_id: 'collect' } },
        { id: 'wrong', handler: 'evidence.assert', config: { artifact_step_id: 'check' } },
        { id: 'apply', handler: 'iac.apply', config: { plan_step: 'missing' } },
      ],
      edges: [
        { from: 'collect', to: 'check' },
        { from: 'check', to: 'wrong' },
      ],
    });
    expect(codesAt(issues)).toEqual([
      'steps[2].config.artifact_step_id not_upstream',
      'steps[3].config.artifact_step_id wrong_step_kind',
      'steps[4].config.plan_step unknown_step',
    ]);
  });

  it('checks inputs: names, options, bounds, patterns and defaults', () => {
    const issues = validateDefinition({
      steps: [sleep('a')],
      inputs: [
        { name: 'ok', type: 'integer', min: 1, max: 3, default: 2 },
        { name: 'ok', type: 'boolean' },
        { name: '9lives', type: 'string' },
        { name: 'pick', type: 'select' },
        { name: 'range', type: 'number', min: 5, max: 1 },
        { name: 'rx', type: 'string', pattern: '(' },
        { name: 'count', type: 'integer', default: 'three' },
        { name: 'colour', type: 'select', options: ['red'], default: 'blue' },
        { name: 'flag', type: 'boolean', options: ['x'] },
      ],
    });
    expect(codesAt(issues)).toEqual([
      'inputs[1].name duplicate_name',
      'inputs[2].name invalid_name',
      'inputs[3].options missing_options',
      'inputs[4].max invalid_bounds',
      'inputs[5].pattern invalid_pattern',
      'inputs[6].default invalid_default',
      'inputs[7].default invalid_default',
      'inputs[8].options not_applicable',
    ]);
  });

  it('runs every step configuration through the step validator at steps[i].config', () => {
    const issues = validateDefinition({
      steps: [sleep('a', 0), { id: 'b', handler: 'no.such', config: {} }],
      target_roles: [{ name: 'x', max_devices: 0 }],
    });
    expect(codesAt(issues)).toEqual([
      'steps[0].config.seconds out_of_range',
      'steps[1].handler unknown_handler',
      'target_roles[0].max_devices invalid_bounds',
    ]);
  });

  it('refuses an empty flow and bad network rules', () => {
    expect(
      codesAt(validateDefinition({ network_policy: { egress_mode: 'deny-all', egress_deny: ['nonsense'], egress_allow: ['10.0.0.0/8'] } })),
    ).toEqual(['network_policy.egress_allow not_applicable', 'network_policy.egress_deny[0] invalid_rule', 'steps no_steps']);
  });
});

describe('structural diff', () => {
  it('names steps, config keys, edges, inputs and roles that changed', () => {
    const from = def({
      steps: [sleep('a'), container('b', { command: ['x'] })],
      edges: [{ from: 'a', to: 'b' }],
      inputs: [{ name: 'n', type: 'string' }],
      target_roles: [{ name: 'r' }],
    });
    const to = def({
      steps: [container('b', { command: ['y'], memory: '1g' }), sleep('c')],
      edges: [{ from: 'b', to: 'c' }],
      inputs: [
        { name: 'n', type: 'text' },
        { name: 'm', type: 'boolean' },
      ],
      target_roles: [],
      network_policy: { egress_mode: 'deny-all' },
    });
    const diff = diffDefinitions(from, to);
    expect(diff).toMatchObject({
      identical: false,
      steps: {
        added: [{ id: 'c', handler: 'general.sleep' }],
        removed: [{ id: 'a', handler: 'general.sleep' }],
        changed: [{ id: 'b', fields: ['config'], config_keys: ['command', 'memory'] }],
      },
      edges: { added: [{ from: 'b', to: 'c' }], removed: [{ from: 'a', to: 'b' }] },
      inputs: { added: ['m'], removed: [], changed: [{ name: 'n', fields: ['type'] }] },
      target_roles: { added: [], removed: ['r'], changed: [] },
      network_policy: { changed: true },
    });
    expect(diffDefinitions(from, structuredClone(from)).identical).toBe(true);
  });
});

describe('handler-level narrowing', () => {
  const restrictions = (current: FlowDefinition | undefined, next: FlowDefinition) =>
    restrictedChanges(current, next).map((c) => `${c.restriction} ${c.path}`);

  it('counts host-access options a step introduces or changes, not those it keeps or drops', () => {
    const privileged = def({ steps: [container('c', { privileged: true }), sleep('s')] });
    expect(restrictions(undefined, privileged)).toEqual(['container_host_access steps[0].config.privileged']);
    expect(restrictions(privileged, def({ steps: [container('c', { privileged: true }), sleep('s', 9)] }))).toEqual([]);
    expect(restrictions(privileged, def({ steps: [container('c'), sleep('s')] }))).toEqual([]);
    expect(restrictions(privileged, def({ steps: [container('c', { privileged: true, extra_mounts: ['/a:/b'] })] }))).toEqual([
      'container_host_access steps[0].config.extra_mounts',
    ]);
    expect(restrictions(privileged, def({ steps: [container('renamed', { privileged: true })] }))).toEqual([
      'container_host_access steps[0].config.privileged',
    ]);
    expect(restrictions(undefined, def({ steps: [container('c', { privileged: false, network_mode: '' })] }))).toEqual([]);
  });

  it('counts step egress wider than the flow policy', () => {
    const policy = { egress_mode: 'allow-listed', egress_allow: ['10.0.0.0/8:443/tcp'], egress_deny: ['10.9.0.0/16'] } as const;
    const flow = (config: Record<string, unknown>) => def({ network_policy: policy, steps: [container('c', config)] });
    expect(restrictions(undefined, flow({ egress_mode: 'open' }))).toEqual(['egress_widening steps[0].config.egress_mode']);
    expect(restrictions(undefined, flow({ egress_mode: 'deny-all' }))).toEqual([]);
    expect(restrictions(undefined, flow({ egress_allow: ['10.0.0.0/8:443/tcp'] }))).toEqual([]);
    expect(restrictions(undefined, flow({ egress_allow: ['192.168.0.0/16:22/tcp'] }))).toEqual([
      'egress_widening steps[0].config.egress_allow[0]',
    ]);
    expect(restrictions(undefined, flow({ egress_deny: [] }))).toEqual(['egress_widening steps[0].config.egress_deny']);
    expect(restrictions(undefined, flow({ egress_deny: ['10.9.0.0/16', '10.8.0.0/16'] }))).toEqual([]);
    // An admin's widening kept as it was is not the operator's doing.
    expect(restrictions(flow({ egress_mode: 'open' }), flow({ egress_mode: 'open', memory: '1g' }))).toEqual([]);
  });

  it('counts a flow policy wider than the current draft', () => {
    const with_ = (policy: FlowDefinition['network_policy']) => def({ steps: [sleep('s')], ...(policy ? { network_policy: policy } : {}) });
    expect(restrictions(with_({ egress_mode: 'deny-all' }), with_({ egress_mode: 'allow-listed', egress_allow: ['10.0.0.0/8'] }))).toEqual([
      'egress_widening network_policy.egress_mode',
    ]);
    expect(restrictions(with_({ egress_mode: 'deny-all' }), with_(undefined))).toEqual(['egress_widening network_policy.egress_mode']);
    expect(
      restrictions(
        with_({ egress_mode: 'allow-listed', egress_allow: ['10.0.0.0/8'] }),
        with_({ egress_mode: 'allow-listed', egress_allow: ['10.0.0.0/8', '0.0.0.0/0'] }),
      ),
    ).toEqual(['egress_widening network_policy.egress_allow[1]']);
    expect(restrictions(with_({ egress_mode: 'open', egress_deny: ['10.9.0.0/16'] }), with_({ egress_mode: 'open' }))).toEqual([
      'egress_widening network_policy.egress_deny',
    ]);
    expect(restrictions(with_({ egress_mode: 'open' }), with_({ egress_mode: 'deny-all' }))).toEqual([]);
    expect(restrictions(undefined, with_({ egress_mode: 'open' }))).toEqual([]);
  });
});
