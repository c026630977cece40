/**
 * The `{{ … }}` templates of a step's configuration as the reference worker renders them
 * (src/worker/templates.ts), found without rendering: the flow interface's preview and the editor's
 * variable contexts read which names a configuration uses. Pure; values are not its business.
 */

export const TEMPLATE_PATH = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

export interface FoundTemplate {
  /** Where the string is (`config.commands[0]`). */
  readonly at: string;
  /** The whole string holding the templates. */
  readonly text: string;
  /** Each `{{ … }}`'s expression, trimmed, in order, with its offset in `text`. */
  readonly expressions: readonly { readonly expression: string; readonly offset: number }[];
}

/** The expressions of one text, in order (none for a text without `{{`). */
export function templateExpressions(text: string): { expression: string; offset: number }[] {
  if (!text.includes('{{')) return [];
  const found: { expression: string; offset: number }[] = [];
  for (const match of text.matchAll(/\{\{\s*(.*?)\s*\}\}/gs)) found.push({ expression: match[1]!, offset: match.index });
  return found;
}

/** Every string of `value` holding a template, with where it is; a `literal` mapping entry's `value` is skipped, as the worker leaves it. */
export function findTemplates(value: unknown, at: string): FoundTemplate[] {
  const found: FoundTemplate[] = [];
  const walk = (item: unknown, path: string): void => {
    if (typeof item === 'string') {
      const expressions = templateExpressions(item);
      if (expressions.length > 0) found.push({ at: path, text: item, expressions });
    } else if (Array.isArray(item)) item.forEach((element, i) => walk(element, `${path}[${i}]`));
    else if (typeof item === 'object' && item !== null) {
      const literal = (item as { mode?: unknown }).mode === 'literal';
      for (const [key, element] of Object.entries(item)) if (!(literal && key === 'value')) walk(element, `${path}.${key}`);
    }
  };
  walk(value, at);
  return found;
}

/** A path's value in `context`, or `undefined` when it names nothing there. */
export function lookupPath(context: Readonly<Record<string, unknown>>, expression: string): { found: boolean; value: unknown } {
  let value: unknown = context;
  for (const segment of expression.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) return { found: false, value: undefined };
    value = (value as Record<string, unknown>)[segment];
  }
  return { found: true, value };
}
