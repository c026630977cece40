import type { FlowDefinition } from '../../../shared/flows/definition.js';
import { findTemplates, lookupPath, TEMPLATE_PATH } from '../../../shared/flows/template-scan.js';

/** The namespaces a launch decides; the rest (`steps`, `vars`, `variables`, `run`) only the run knows. */
const LAUNCH_NAMESPACES = new Set(['inputs', 'params', 'targets']);

export interface TemplateReference {
  readonly step_id: string;
  readonly path: string;
  readonly template: string;
  readonly resolved: boolean;
  readonly value: unknown;
  readonly pending: string[];
}

/**
 * Every template of the steps' configs and approval messages that names what a launch decides, rendered
 * with the launch's params and targets as the worker would render it (a whole-string template keeps its
 * value's type, one inside a text becomes text); one that also names what only the run knows stays
 * unresolved, with those paths listed.
 */
export function previewReferences(
  definition: FlowDefinition,
  params: Record<string, unknown>,
  targets: Record<string, string[]>,
): TemplateReference[] {
  const context = { inputs: params, params, targets };
  const references: TemplateReference[] = [];
  for (const step of definition.steps) {
    const found = [...findTemplates(step.config, 'config'), ...findTemplates(step.approval?.message ?? null, 'approval.message')];
    for (const template of found) {
      const expressions = template.expressions.map((e) => e.expression);
      const namespaceOf = (expression: string) => expression.split('.')[0]!;
      if (!expressions.some((e) => TEMPLATE_PATH.test(e) && LAUNCH_NAMESPACES.has(namespaceOf(e)))) continue;
      const pending = expressions.filter(
        (e) => !TEMPLATE_PATH.test(e) || !LAUNCH_NAMESPACES.has(namespaceOf(e)) || !lookupPath(context, e).found,
      );
      const resolved = pending.length === 0;
      references.push({
        step_id: step.id,
        path: template.at,
        template: template.text,
        resolved,
        value: resolved ? render(template.text, context) : null,
        pending,
      });
    }
  }
  return references;
}

function render(text: string, context: Record<string, unknown>): unknown {
  const whole = /^\{\{\s*(.*?)\s*\}\}$/s.exec(text);
  if (whole && !whole[1]!.includes('}}')) return lookupPath(context, whole[1]!).value;
  return text.replace(/\{\{\s*(.*?)\s*\}\}/gs, (_match, expression: string) => {
    const value = lookupPath(context, expression).value;
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
