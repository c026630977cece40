import { ORG_ROLES, isOrgRole } from '../tenancy/org-roles.js';
import type { FlowDefinition } from './definition.js';
import type { DefinitionIssue } from './definition-issues.js';

/**
 * An approval gate's `approver_role` names an organization role: one nobody can hold (a typo, a
 * realm group's name) would leave the run waiting for a decision no person may make.
 */
export function approvalGateIssues(steps: FlowDefinition['steps']): DefinitionIssue[] {
  const issues: DefinitionIssue[] = [];
  steps.forEach((step, i) => {
    const role = step.approval?.approver_role;
    if (role === undefined || role === null || isOrgRole(role)) return;
    issues.push({
      path: `steps[${i}].approval.approver_role`,
      message: `no organization role is named "${role}" (one of ${ORG_ROLES.join(', ')})`,
      code: 'unknown_approver_role',
    });
  });
  return issues;
}
