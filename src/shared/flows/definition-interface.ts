import type { FlowInput, FlowNetworkPolicy, FlowTargetRole } from './definition.js';
import type { DefinitionIssue } from './definition-issues.js';
import { checkParamValue } from './params.js';
import { formatProblem } from './step-handlers/formats.js';

export const INPUT_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,63}$/;
export const TARGET_ROLE_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/** Which optional members each input type takes; anything else set on an input is reported. */
const APPLICABLE: Readonly<Record<FlowInput['type'], readonly ('options' | 'min' | 'max' | 'pattern')[]>> = {
  string: ['min', 'max', 'pattern'],
  text: ['min', 'max'],
  integer: ['min', 'max'],
  number: ['min', 'max'],
  boolean: [],
  select: ['options'],
  multiselect: ['options'],
  json: [],
};

const LENGTH_BOUNDED = new Set<FlowInput['type']>(['string', 'text']);

/** Names unique and well-formed, members that apply to the type, sane bounds, options, a valid pattern and default. */
export function inputIssues(inputs: readonly FlowInput[]): DefinitionIssue[] {
  const issues: DefinitionIssue[] = [];
  const names = new Set<string>();
  inputs.forEach((input, i) => {
    const at = (member: string) => `inputs[${i}].${member}`;
    if (!INPUT_NAME.test(input.name))
      issues.push({ path: at('name'), message: 'must match ^[a-zA-Z_][a-zA-Z0-9_]{0,63}$', code: 'invalid_name' });
    else if (names.has(input.name))
      issues.push({ path: at('name'), message: `another input is already named "${input.name}"`, code: 'duplicate_name' });
    names.add(input.name);

    const applicable = APPLICABLE[input.type];
    for (const member of ['options', 'min', 'max', 'pattern'] as const) {
      if (input[member] !== undefined && !applicable.includes(member)) {
        issues.push({ path: at(member), message: `does not apply to a ${input.type} input`, code: 'not_applicable' });
      }
    }
    if (applicable.includes('options')) {
      if (!input.options || input.options.length === 0)
        issues.push({ path: at('options'), message: `a ${input.type} input needs at least one option`, code: 'missing_options' });
      else if (new Set(input.options).size !== input.options.length)
        issues.push({ path: at('options'), message: 'an option is listed twice', code: 'duplicate_name' });
    }
    if (LENGTH_BOUNDED.has(input.type) || input.type === 'integer') {
      for (const member of ['min', 'max'] as const) {
        const value = input[member];
        if (value !== undefined && (!Number.isInteger(value) || (LENGTH_BOUNDED.has(input.type) && value < 0))) {
          issues.push({
            path: at(member),
            message: LENGTH_BOUNDED.has(input.type) ? 'a length bound is a whole number, at least 0' : 'must be a whole number',
            code: 'invalid_bounds',
          });
        }
      }
    }
    if (input.min !== undefined && input.max !== undefined && input.min > input.max) {
      issues.push({ path: at('max'), message: 'must not be less than min', code: 'invalid_bounds' });
    }
    const patternOk = input.pattern === undefined || !applicable.includes('pattern') || compiles(input.pattern);
    if (!patternOk) issues.push({ path: at('pattern'), message: 'is not a valid regular expression', code: 'invalid_pattern' });

    // A default is checked the way a run's value is, so a launch with no params never fails on it.
    if (input.default !== undefined && input.default !== null && patternOk) {
      const problem = checkParamValue({ ...input, required: false }, input.default);
      if (problem) issues.push({ path: at('default'), message: problem.message, code: 'invalid_default' });
    }
  });
  return issues;
}

export function targetRoleIssues(roles: readonly FlowTargetRole[]): DefinitionIssue[] {
  const issues: DefinitionIssue[] = [];
  const names = new Set<string>();
  roles.forEach((role, i) => {
    if (!TARGET_ROLE_NAME.test(role.name))
      issues.push({ path: `target_roles[${i}].name`, message: 'must match ^[a-z][a-z0-9_-]{0,63}$', code: 'invalid_name' });
    else if (names.has(role.name))
      issues.push({
        path: `target_roles[${i}].name`,
        message: `another target role is already named "${role.name}"`,
        code: 'duplicate_name',
      });
    names.add(role.name);
    const max = role.max_devices;
    if (max !== undefined && max !== null && (max < 1 || max < (role.min_devices ?? 0))) {
      issues.push({
        path: `target_roles[${i}].max_devices`,
        message: 'must be at least 1 and at least min_devices (null for no limit)',
        code: 'invalid_bounds',
      });
    }
  });
  return issues;
}

export function networkPolicyIssues(policy: FlowNetworkPolicy | undefined): DefinitionIssue[] {
  if (!policy) return [];
  const issues: DefinitionIssue[] = [];
  for (const member of ['egress_allow', 'egress_deny'] as const) {
    (policy[member] ?? []).forEach((rule, i) => {
      // The same rule grammar as a step's egress fields.
      const problem = formatProblem('egress_rule', rule);
      if (problem) issues.push({ path: `network_policy.${member}[${i}]`, message: problem, code: 'invalid_rule' });
    });
  }
  if (policy.egress_allow && policy.egress_allow.length > 0 && policy.egress_mode !== 'allow-listed') {
    issues.push({
      path: 'network_policy.egress_allow',
      message: 'allow rules apply only to the allow-listed mode',
      code: 'not_applicable',
    });
  }
  return issues;
}

/** The whole value must match (as params.ts applies it): the same compilation, `u` first. */
function compiles(pattern: string): boolean {
  for (const flags of ['u', '']) {
    try {
      new RegExp(`^(?:${pattern})$`, flags);
      return true;
    } catch {
      // try the next flags
    }
  }
  return false;
}
