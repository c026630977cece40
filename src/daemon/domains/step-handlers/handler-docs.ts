import type { FieldDocs, HandlerDocs } from '../../../shared/api/step-handlers.js';
import { RESERVED_KEY_PREFIX, rulesOf, type HandlerField, type StepHandler } from '../../../shared/flows/step-handlers/index.js';

function fieldDocs(field: HandlerField): FieldDocs {
  const docs: Record<string, unknown> = { key: field.key, type: field.type, required: field.required === true };
  const optional: [string, unknown][] = [
    ['default', field.default],
    ['default_text', field.defaultText],
    ['enum', field.enum],
    ['item_enum', field.itemEnum],
    ['min', field.min],
    ['max', field.max],
    ['clamped', field.clamped],
    ['format', field.format],
    ['key_value', field.keyValue],
    ['grouped_keys', field.groupedKeys],
    ['secret_values', field.secretValues],
    ['variants', field.variants],
    [
      'entries',
      field.entries && { modes: field.entries.modes, ...(field.entries.modeRequires ? { mode_requires: field.entries.modeRequires } : {}) },
    ],
    ['narrowing', field.narrowing],
  ];
  for (const [name, value] of optional) if (value !== undefined) docs[name] = value;
  docs['meaning'] = field.meaning;
  return docs as unknown as FieldDocs;
}

export function handlerDocs(handler: StepHandler): HandlerDocs {
  const rules = rulesOf(handler.id).map((rule) => ({ id: rule.id, description: rule.description }));
  return {
    id: handler.id,
    category: handler.category,
    kinds: [...handler.kinds],
    description: handler.description,
    internal: handler.internal,
    open_config: handler.openConfig === true,
    reserved_key_prefix: RESERVED_KEY_PREFIX,
    fields: handler.fields.map(fieldDocs),
    rules,
    markdown: renderMarkdown(handler, rules),
  };
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (value: string) => (value === '' ? '""' : `\`${value}\``);

function typeCell(field: HandlerField): string {
  let type: string = field.type;
  if (field.enum) type += field.type === 'enum' ? ` ${field.enum.map(code).join(', ')}` : `, one of ${field.enum.map(code).join(', ')}`;
  if (field.format) type += ` (${field.format.replace(/_/g, ' ')})`;
  if (field.itemEnum) type += ` of ${field.itemEnum.map(code).join(', ')}`;
  if (field.variants) type += ` (${field.variants.join(' or ')})`;
  if (field.keyValue) type += ' (KEY=VALUE lines or object)';
  if (field.min !== undefined && field.max !== undefined) type += `, ${field.min}-${field.max}${field.clamped ? ' (clamped)' : ''}`;
  else if (field.min !== undefined) type += `, ≥ ${field.min}`;
  else if (field.max !== undefined) type += `, ≤ ${field.max}`;
  return type;
}

function defaultCell(field: HandlerField): string {
  const base =
    field.defaultText ?? (field.default === undefined ? '–' : field.default === '' ? '""' : `\`${JSON.stringify(field.default)}\``);
  return field.required ? `${base} (required)` : base;
}

function renderMarkdown(handler: StepHandler, rules: readonly { description: string }[]): string {
  const lines = [`# ${handler.id}`, '', handler.description, '', `Category: ${handler.category}. Kinds: ${handler.kinds.join(', ')}.`];
  if (handler.internal) lines.push('', "Internal: registered for the platform's own use and hidden from the palette.");
  if (handler.fields.length > 0) {
    lines.push('', '| Key | Type | Default | Meaning |', '|---|---|---|---|');
    for (const field of handler.fields) {
      const meaning = field.narrowing ? `${field.meaning} (platform admin only: ${field.narrowing.replace('_', ' ')})` : field.meaning;
      lines.push(`| ${field.key} | ${cell(typeCell(field))} | ${cell(defaultCell(field))} | ${cell(meaning)} |`);
    }
  } else if (handler.openConfig) {
    lines.push('', 'No catalogued fields: the configuration is written by the platform and not checked.');
  }
  if (rules.length > 0) lines.push('', 'Rules:', ...rules.map((rule) => `- ${rule.description}`));
  if (handler.openConfig) return lines.join('\n') + '\n';
  lines.push(
    '',
    `Templates such as \`{{ inputs.<name> }}\` may appear in string values, and as the whole value of a number, boolean, enum or list field. Keys starting with \`${RESERVED_KEY_PREFIX}\` in KEY=VALUE maps are reserved and ignored.`,
  );
  return lines.join('\n') + '\n';
}
