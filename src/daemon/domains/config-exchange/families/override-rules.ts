import { OverrideRuleViolation } from '../../../../shared/policy/resolution.js';
import type { ItemIssue } from '../family.js';

/** The override rule an item breaks, as an issue at `policy` (or at the item when it names no catalogue entry). */
export function ruleIssues(check: () => unknown): readonly ItemIssue[] {
  try {
    check();
    return [];
  } catch (error) {
    if (!(error instanceof OverrideRuleViolation)) throw error;
    const at = error.rule === 'unknown_action' || error.rule === 'unknown_route' ? '' : 'policy';
    return [{ path: at, message: `${error.rule}: ${error.message}` }];
  }
}
