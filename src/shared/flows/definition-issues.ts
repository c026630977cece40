import type { StepIssueCode } from './step-validator.js';

/** Why a definition cannot be committed (step configuration codes come from the step validator). */
export type DefinitionIssueCode =
  | 'invalid_shape'
  | 'no_steps'
  | 'invalid_id'
  | 'duplicate_id'
  | 'unknown_step'
  | 'self_edge'
  | 'duplicate_edge'
  | 'cycle'
  | 'unknown_target_role'
  | 'unknown_approver_role'
  | 'wrong_step_kind'
  | 'not_upstream'
  | 'invalid_name'
  | 'duplicate_name'
  | 'invalid_default'
  | 'missing_options'
  | 'not_applicable'
  | 'invalid_bounds'
  | 'invalid_pattern'
  | 'invalid_rule'
  | StepIssueCode;

/** One problem of a definition: where (a JSON path from the definition's root), what, and a stable code. */
export interface DefinitionIssue {
  readonly path: string;
  readonly message: string;
  readonly code: DefinitionIssueCode;
}
