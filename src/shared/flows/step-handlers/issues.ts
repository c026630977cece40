/** What the step validator reports; clients branch on `code` and point at `path`. */

export const STEP_ISSUE_CODES = [
  'unknown_handler',
  'unknown_field',
  'wrong_type',
  'out_of_range',
  'not_in_enum',
  'missing_required',
  'invalid_value',
] as const;
export type StepIssueCode = (typeof STEP_ISSUE_CODES)[number];

export interface StepIssue {
  /** JSON-path-like, from the caller's base path: `steps[2].config.port`, `steps[2].config.env.FOO`. */
  readonly path: string;
  readonly message: string;
  readonly code: StepIssueCode;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `base.key`, or `base["odd key"]` when the key is not an identifier. */
export function childPath(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  if (IDENTIFIER.test(key)) return base === '' ? key : `${base}.${key}`;
  return `${base}[${JSON.stringify(key)}]`;
}
