import { findHandler } from './step-handlers/index.js';
import { checkField } from './step-handlers/field-check.js';
import { isPlainObject } from './step-handlers/field-values.js';
import { childPath, type StepIssue } from './step-handlers/issues.js';
import { rulesOf } from './step-handlers/rules.js';

export { STEP_ISSUE_CODES, type StepIssue, type StepIssueCode } from './step-handlers/issues.js';
export { stripReservedKeys, keyValueMap } from './step-handlers/key-value.js';

/**
 * Checks one step's configuration against its handler in the catalogue: unknown handler, unknown keys,
 * each field's type, enum, bounds and format, required fields, then the spec's cross-field rules.
 * Pure and synchronous: it runs on every draft save. An absent configuration counts as `{}`.
 *
 * `basePath` is where the configuration sits (`steps[2].config`); an unknown handler is reported on
 * the sibling `handler` member (`steps[2].handler`).
 */
export function validateStepConfig(handlerId: string, config: unknown, basePath: string): StepIssue[] {
  const handler = findHandler(handlerId);
  if (!handler) {
    return [{ path: handlerPath(basePath), code: 'unknown_handler', message: `no step handler ${JSON.stringify(handlerId)}` }];
  }
  const values = config === undefined ? {} : config;
  if (!isPlainObject(values)) return [{ path: basePath, code: 'wrong_type', message: 'the configuration must be an object' }];
  if (handler.openConfig) return [];

  const issues: StepIssue[] = [];
  const fields = new Map(handler.fields.map((field) => [field.key, field]));
  for (const key of Object.keys(values)) {
    if (!fields.has(key))
      issues.push({ path: childPath(basePath, key), code: 'unknown_field', message: `${handler.id} has no field ${key}` });
  }
  for (const field of handler.fields) {
    const path = childPath(basePath, field.key);
    const value = values[field.key];
    if (value !== undefined) issues.push(...checkField(field, value, path));
    else if (field.required) issues.push({ path, code: 'missing_required', message: `${field.key} is required` });
  }
  // A cross-field verdict on a value already refused on its own (or inside) would only repeat the refusal.
  const refused = issues.map((issue) => issue.path);
  const alreadyRefused = (path: string) => refused.some((p) => p === path || p.startsWith(`${path}.`) || p.startsWith(`${path}[`));
  for (const rule of rulesOf(handler.id)) {
    issues.push(...rule.check(values, handler, basePath).filter((issue) => !alreadyRefused(issue.path)));
  }
  return issues;
}

function handlerPath(basePath: string): string {
  return basePath.endsWith('.config') ? `${basePath.slice(0, -'.config'.length)}.handler` : basePath;
}
