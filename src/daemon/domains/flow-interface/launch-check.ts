import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { validateParams } from '../../../shared/flows/params.js';
import { checkTargets } from '../runs/targets.js';
import type { OptionsRepo } from './options-repo.js';

export interface LaunchIssue {
  readonly path: string;
  readonly json_path: string;
  readonly code: string;
  readonly message: string;
}

export interface LaunchCheck {
  readonly issues: LaunchIssue[];
  /** The params a run would get (defaults applied), or `{}` when they are refused. */
  readonly params: Record<string, unknown>;
  readonly targets: Record<string, string[]>;
}

/** `params.a`, `targets.r[1]` as a JSON Path; names that are not identifiers are quoted. */
export function jsonPath(path: string): string {
  return `$${path
    .split('.')
    .map((segment) => {
      const index = /^(.*?)((?:\[\d+\])*)$/.exec(segment)!;
      const name = index[1]!;
      return `${/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `.${name}` : `['${name.replace(/'/g, "\\'")}']`}${index[2]}`;
    })
    .join('')}`;
}

function issue(path: string, code: string, message: string): LaunchIssue {
  return { path, json_path: jsonPath(path), code, message };
}

/**
 * A launch's params and targets checked as run admission checks them (the same `validateParams` and
 * `checkTargets`), every issue collected rather than the first answered, and the devices looked up in
 * the readable organizations: what admission would refuse, found before the form is sent.
 */
export async function checkLaunch(
  repo: OptionsRepo,
  orgIds: readonly string[],
  definition: FlowDefinition,
  params: unknown,
  targets: Readonly<Record<string, readonly string[]>> = {},
): Promise<LaunchCheck> {
  const issues: LaunchIssue[] = [];
  const checkedParams = validateParams(definition.inputs, params);
  if (!checkedParams.ok) for (const i of checkedParams.issues) issues.push(issue(i.path, i.code, i.message));
  const checkedTargets = checkTargets(definition.target_roles, targets);
  if (!checkedTargets.ok) for (const i of checkedTargets.issues) issues.push(issue(i.path, 'invalid_targets', i.message));
  const named = checkedTargets.ok ? checkedTargets.targets : {};
  const live = await repo.liveDevices(orgIds, Object.values(named).flat());
  for (const [role, ids] of Object.entries(named)) {
    for (const id of ids) {
      if (live.has(id)) continue;
      const at = targets[role]!.findIndex((given) => given.toLowerCase() === id);
      issues.push(issue(`targets.${role}[${at}]`, 'unknown_device', 'no live device of this organization or the shared one has this id'));
    }
  }
  return { issues, params: checkedParams.ok ? checkedParams.params : {}, targets: named };
}
