import { findUnstorableText, UNSTORABLE_TEXT_MESSAGES } from '../json/unstorable-text.js';
import { parseSecretReference } from '../secrets/reference.js';

/**
 * What a variable may be called and hold: pure, shared by the daemon (which refuses what breaks them)
 * and the CLI (which parses a value given on the command line by its type).
 */

export const VARIABLE_TYPES = ['string', 'number', 'boolean', 'json', 'secret_ref'] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

/**
 * A name is one path segment of a template (`{{ variables.<name> }}`) and an environment-variable-like
 * identifier, as GitLab CI variables are: letters, digits and `_`, not starting with a digit.
 */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
export const VARIABLE_NAME_RULE = 'letters, digits and _, not starting with a digit, at most 128 characters';

/** The largest value, as JSON text (UTF-8 bytes): variables configure steps, files carry bulk. */
export const VARIABLE_VALUE_MAX_BYTES = 65_536;

/** Why `value` is not a value of `type`, or undefined when it is. */
export function variableValueProblem(type: VariableType, value: unknown): string | undefined {
  if (value === undefined) return 'is required';
  const unstorable = findUnstorableText(value);
  if (unstorable) return `${unstorable.path ? `${unstorable.path}: ` : ''}${UNSTORABLE_TEXT_MESSAGES[unstorable.kind]}`;
  if (new TextEncoder().encode(JSON.stringify(value)).length > VARIABLE_VALUE_MAX_BYTES)
    return `must be at most ${VARIABLE_VALUE_MAX_BYTES} bytes as JSON`;
  switch (type) {
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string for a string variable';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a finite number for a number variable';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false for a boolean variable';
    case 'json':
      return value === null || typeof value === 'object' ? undefined : 'must be a JSON object, array or null for a json variable';
    case 'secret_ref':
      if (typeof value !== 'string') return 'must be a secret reference (a string) for a secret_ref variable';
      return parseSecretReference(value)
        ? undefined
        : "must be a secret reference: <scheme>://orgs/<org_slug>/secrets/<path>[#key] or {{ secret('<name>') }}";
  }
}

/** The JSON type a template reading the variable gets (a `secret_ref` gives the secret's value, a string). */
export function variableValueKind(type: VariableType): 'string' | 'number' | 'boolean' | 'any' {
  return type === 'secret_ref' ? 'string' : type === 'json' ? 'any' : type;
}
