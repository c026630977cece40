import { findUnstorableText, UNSTORABLE_TEXT_MESSAGES } from '../json/unstorable-text.js';
import type { FlowInput } from './definition.js';

/**
 * A run's `params` checked against the inputs of the flow version it runs: pure, shared by run
 * admission (every trigger path) and anything that wants to check a launch form before sending it.
 */

export type ParamIssueCode =
  | 'not_an_object'
  | 'unknown_param'
  | 'required'
  | 'wrong_type'
  | 'out_of_bounds'
  | 'not_in_options'
  | 'pattern_mismatch'
  | 'unstorable_text';

export interface ParamIssue {
  /** `params` for the whole value, else `params.<name>`. */
  readonly path: string;
  readonly code: ParamIssueCode;
  readonly message: string;
}

/** An input's `pattern` compiled to match a whole value, or undefined when it is not a valid regular expression. */
export type PatternCompiler = (pattern: string) => RegExp | undefined;

export type ParamsResult =
  { readonly ok: true; readonly params: Record<string, unknown> } | { readonly ok: false; readonly issues: readonly ParamIssue[] };

/**
 * Checks `params` (absent counts as `{}`) against `inputs` and answers them normalized: defaults
 * applied for absent inputs, inputs with neither a value nor a default left out. Values are taken as
 * sent, never coerced (`"5"` is not an integer): every trigger path carries JSON, which has types.
 * `null` counts as absent, except for `json` inputs, where it is a value. A caller checking many params
 * against the same few flows passes a compiler that remembers its patterns (run admission does).
 */
export function validateParams(inputs: readonly FlowInput[], params: unknown, patterns: PatternCompiler = compilePattern): ParamsResult {
  const given = params === undefined || params === null ? {} : params;
  if (typeof given !== 'object' || Array.isArray(given)) {
    return { ok: false, issues: [{ path: 'params', code: 'not_an_object', message: 'must be an object of input name to value' }] };
  }
  const values = given as Record<string, unknown>;
  const issues: ParamIssue[] = [];
  const known = new Set(inputs.map((i) => i.name));
  for (const name of Object.keys(values)) {
    if (!known.has(name))
      issues.push({ path: `params.${name}`, code: 'unknown_param', message: 'the flow declares no input of this name' });
  }
  const normalized: Record<string, unknown> = {};
  for (const input of inputs) {
    const value = Object.hasOwn(values, input.name) ? values[input.name] : undefined;
    const absent = value === undefined || (value === null && input.type !== 'json');
    if (absent) {
      if (input.default !== undefined && input.default !== null) normalized[input.name] = input.default;
      else if (input.required) issues.push({ path: `params.${input.name}`, code: 'required', message: 'is required' });
      continue;
    }
    const issue = checkParamValue(input, value, patterns);
    if (issue) issues.push({ path: `params.${input.name}`, ...issue });
    else normalized[input.name] = value;
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, params: normalized };
}

/** Why `value` does not satisfy `input`, or undefined when it does (also usable to check a default). */
export function checkParamValue(
  input: FlowInput,
  value: unknown,
  patterns: PatternCompiler = compilePattern,
): { code: ParamIssueCode; message: string } | undefined {
  // The run stores its params as jsonb, which holds neither.
  const unstorable = findUnstorableText(value);
  if (unstorable)
    return {
      code: 'unstorable_text',
      message: `${unstorable.path ? `${unstorable.path}: ` : ''}${UNSTORABLE_TEXT_MESSAGES[unstorable.kind]}`,
    };
  switch (input.type) {
    case 'string':
    case 'text':
      return checkString(input, value, patterns);
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) return wrongType('an integer');
      return checkBounds(input, value, 'be');
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return wrongType('a number');
      return checkBounds(input, value, 'be');
    case 'boolean':
      return typeof value === 'boolean' ? undefined : wrongType('true or false');
    case 'select':
      if (typeof value !== 'string') return wrongType('a string');
      return (input.options ?? []).includes(value) ? undefined : notInOptions(input);
    case 'multiselect':
      return checkMultiselect(input, value);
    case 'json':
      return undefined;
  }
}

function checkString(input: FlowInput, value: unknown, patterns: PatternCompiler): { code: ParamIssueCode; message: string } | undefined {
  if (typeof value !== 'string') return wrongType('a string');
  // A required text input left empty is as good as missing, the way a launch form treats it.
  if (input.required && value === '') return { code: 'required', message: 'is required and must not be empty' };
  // Lengths in characters (code points), as the database counts them.
  const bounds = checkBounds(input, [...value].length, 'have a length');
  if (bounds) return bounds;
  if (input.type === 'string' && input.pattern !== undefined) {
    const pattern = patterns(input.pattern);
    if (!pattern) return { code: 'pattern_mismatch', message: "the flow's pattern for this input is not a valid regular expression" };
    if (!pattern.test(value)) return { code: 'pattern_mismatch', message: `must match the pattern ${input.pattern}` };
  }
  return undefined;
}

function checkMultiselect(input: FlowInput, value: unknown): { code: ParamIssueCode; message: string } | undefined {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return wrongType('an array of strings');
  const options = input.options ?? [];
  if (value.some((v) => !options.includes(v as string))) return notInOptions(input);
  if (new Set(value).size !== value.length) return { code: 'not_in_options', message: 'must not name an option twice' };
  return undefined;
}

function checkBounds(input: FlowInput, measure: number, verb: string): { code: ParamIssueCode; message: string } | undefined {
  if (input.min !== undefined && measure < input.min) return { code: 'out_of_bounds', message: `must ${verb} at least ${input.min}` };
  if (input.max !== undefined && measure > input.max) return { code: 'out_of_bounds', message: `must ${verb} at most ${input.max}` };
  return undefined;
}

function wrongType(expected: string): { code: ParamIssueCode; message: string } {
  return { code: 'wrong_type', message: `must be ${expected}` };
}

function notInOptions(input: FlowInput): { code: ParamIssueCode; message: string } {
  return { code: 'not_in_options', message: `must be one of: ${(input.options ?? []).join(', ')}` };
}

/** The whole value must match, as an HTML `pattern` attribute does (`u` first); neither flag keeps state between `test` calls. */
export function compilePattern(pattern: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${pattern})$`, 'u');
  } catch {
    try {
      return new RegExp(`^(?:${pattern})$`);
    } catch {
      return undefined;
    }
  }
}
