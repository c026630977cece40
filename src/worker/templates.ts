/**
 * The `{{ … }}` templates a step's configuration may hold, rendered before its handler runs. The worker
 * understands a dotted path into the run's context and nothing more:
 *
 * - `inputs.<name>` (also `params.<name>`): the run's params;
 * - `targets.<role>`: the device ids of a target role;
 * - `vars.<name>`: the run's variables as they are when the step starts;
 * - `variables.<name>`: the organization's variables (docs/variables.md), read once when the run starts;
 * - `steps.<step_id>.outputs.<key>`: an earlier step's outputs;
 * - `run.id`, `run.name`, `run.workflow_id`, `run.attempt`.
 *
 * A string that is exactly one template takes the value's own type (`"{{ inputs.seconds }}"` gives an
 * integer); a template inside a longer string is replaced by the value's text (JSON for lists and
 * objects). The `value` of an entry in `literal` mode is left as written. A path that names nothing, or any other expression (`secret('…')`, filters), fails the step
 * with `template_error` rather than running it with a guessed value.
 */
export class TemplateError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = 'TemplateError';
  }
}

const TEMPLATE = /\{\{\s*(.*?)\s*\}\}/g;
const WHOLE = /^\{\{\s*(.*?)\s*\}\}$/s;
const PATH = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

export type TemplateContext = Readonly<Record<string, unknown>>;

export function renderConfig(config: Readonly<Record<string, unknown>>, context: TemplateContext): Record<string, unknown> {
  return renderValue(config, context, 'config') as Record<string, unknown>;
}

/**
 * A text with templates (an approval gate's `message`), rendered as config strings are; a value that is
 * not a string (a whole-string template naming a number or an object) becomes its JSON text.
 */
export function renderText(text: string, context: TemplateContext, at: string): string {
  const value = renderString(text, context, at);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function renderValue(value: unknown, context: TemplateContext, at: string): unknown {
  if (typeof value === 'string') return renderString(value, context, at);
  if (Array.isArray(value)) return value.map((item, i) => renderValue(item, context, `${at}[${i}]`));
  if (typeof value === 'object' && value !== null) {
    // A mapping entry in `literal` mode (flow.run's field_mappings) means its value as written, braces and all.
    const literal = (value as { mode?: unknown }).mode === 'literal';
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, literal && key === 'value' ? item : renderValue(item, context, `${at}.${key}`)]),
    );
  }
  return value;
}

function renderString(text: string, context: TemplateContext, at: string): unknown {
  if (!text.includes('{{')) return text;
  const whole = WHOLE.exec(text);
  if (whole && !whole[1]!.includes('}}')) return lookup(whole[1]!, context, at);
  return text.replace(TEMPLATE, (_match, expression: string) => {
    const value = lookup(expression, context, at);
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}

function lookup(expression: string, context: TemplateContext, at: string): unknown {
  if (!PATH.test(expression)) throw new TemplateError(at, `${at}: "{{ ${expression} }}" is not a path this worker renders`);
  let value: unknown = context;
  for (const segment of expression.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) {
      throw new TemplateError(at, `${at}: "{{ ${expression} }}" names nothing`);
    }
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}
