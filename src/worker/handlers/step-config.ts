import { findHandler } from '../../shared/flows/step-handlers/index.js';
import { checkField } from '../../shared/flows/step-handlers/field-check.js';
import { StepFailure } from './types.js';

/**
 * A step's rendered configuration with the catalogue's defaults filled in, checked against the catalogue
 * as the daemon checks a saved definition: a template may have rendered to a value the field does not
 * take (`port: "{{ inputs.port }}"` giving 0), which only the worker can see. Keys the catalogue does not
 * list are kept as written (open configs). Fails the step with `invalid_config` and the issues.
 */
export function readConfig(handlerId: string, config: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const handler = findHandler(handlerId);
  if (!handler) throw new StepFailure('invalid_config', `${handlerId} is not in the step handler catalogue`);
  const filled: Record<string, unknown> = { ...config };
  const issues = [];
  for (const field of handler.fields) {
    const value = config[field.key] ?? field.default;
    if (value === undefined) continue;
    filled[field.key] = value;
    issues.push(...checkField(field, value, field.key));
  }
  if (issues.length > 0) {
    throw new StepFailure('invalid_config', issues.map((issue) => `${issue.path}: ${issue.message}`).join('; '), { issues });
  }
  return filled;
}
