import { formatProblem } from './formats.js';
import { isPlainObject } from './field-values.js';
import { isReservedKey, keyProblem, parseKeyValueText } from './key-value.js';
import { childPath, type StepIssue } from './issues.js';
import { LEGACY_TRANSFER_METHODS } from './netos-upgrade.js';
import { isWholeTemplate } from './templates.js';
import type { HandlerField } from './types.js';

type Issues = StepIssue[];

/** The issues of one configured value against its field (present, not undefined). */
export function checkField(field: HandlerField, value: unknown, path: string): Issues {
  const issues: Issues = [];
  switch (field.type) {
    case 'string':
      checkString(field, value, path, issues);
      break;
    case 'integer':
    case 'number':
      checkNumber(field, field.type, value, path, issues);
      break;
    case 'boolean':
      if (typeof value !== 'boolean' && !isWholeTemplate(value)) issues.push(wrongType(path, 'a boolean'));
      break;
    case 'enum':
      checkEnum(field, value, path, issues);
      break;
    case 'string[]':
      checkStringList(field, value, path, issues);
      break;
    case 'object':
      if (field.keyValue) checkKeyValue(field, value, path, issues);
      else if (!isPlainObject(value)) issues.push(wrongType(path, 'an object'));
      else if (field.entries) checkEntries(field, value, path, issues);
      break;
    case 'object|null':
      checkNullable(field, value, path, issues);
      break;
  }
  if (field.required && isMissing(value)) issues.push({ path, code: 'missing_required', message: `${field.key} is required` });
  return issues;
}

/** A required field counts as missing when absent, blank, or an empty list. */
export function isMissing(value: unknown): boolean {
  return value === undefined || (typeof value === 'string' && value.trim() === '') || (Array.isArray(value) && value.length === 0);
}

function wrongType(path: string, what: string): StepIssue {
  return { path, code: 'wrong_type', message: `must be ${what}` };
}

function checkString(field: HandlerField, value: unknown, path: string, issues: Issues): void {
  if (typeof value !== 'string') {
    issues.push(wrongType(path, 'a string'));
    return;
  }
  if (field.enum && !field.enum.includes(value) && !isWholeTemplate(value)) {
    issues.push({ path, code: 'not_in_enum', message: `must be one of ${listOf(field.enum)}` });
    return;
  }
  checkFormat(field, value, path, issues);
}

function checkFormat(field: HandlerField, value: string, path: string, issues: Issues): void {
  if (!field.format || value === '') return;
  const problem = formatProblem(field.format, value);
  if (problem) issues.push({ path, code: 'invalid_value', message: problem });
}

function checkNumber(field: HandlerField, type: 'integer' | 'number', value: unknown, path: string, issues: Issues): void {
  if (isWholeTemplate(value)) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || (type === 'integer' && !Number.isInteger(value))) {
    issues.push(wrongType(path, type === 'integer' ? 'an integer' : 'a number'));
    return;
  }
  if (field.clamped) return;
  checkBounds(field, value, path, issues);
}

function checkBounds(field: HandlerField, value: number, path: string, issues: Issues): void {
  if (field.min !== undefined && value < field.min) issues.push({ path, code: 'out_of_range', message: `must be at least ${field.min}` });
  else if (field.max !== undefined && value > field.max)
    issues.push({ path, code: 'out_of_range', message: `must be at most ${field.max}` });
}

function checkEnum(field: HandlerField, value: unknown, path: string, issues: Issues): void {
  if (typeof value !== 'string') {
    issues.push(wrongType(path, `one of ${listOf(field.enum ?? [])}`));
    return;
  }
  if ((field.enum ?? []).includes(value) || isWholeTemplate(value)) return;
  const legacy = field.key === 'transfer_method' && (LEGACY_TRANSFER_METHODS as readonly string[]).includes(value.toLowerCase());
  issues.push({
    path,
    code: 'not_in_enum',
    message: legacy
      ? `${value} is a legacy transfer method: HTTP(S) device-side pull is the only transfer implemented; use ${listOf(field.enum ?? [])}`
      : `must be one of ${listOf(field.enum ?? [])}`,
  });
}

function checkStringList(field: HandlerField, value: unknown, path: string, issues: Issues): void {
  if (isWholeTemplate(value)) return;
  if (!Array.isArray(value)) {
    issues.push(wrongType(path, 'a list of strings'));
    return;
  }
  value.forEach((item: unknown, index) => {
    const at = childPath(path, index);
    if (typeof item !== 'string') issues.push(wrongType(at, 'a string'));
    else if (field.itemEnum && !field.itemEnum.includes(item) && !isWholeTemplate(item)) {
      issues.push({ path: at, code: 'not_in_enum', message: `must be one of ${listOf(field.itemEnum)}` });
    } else checkFormat(field, item, at, issues);
  });
}

function checkKeyValue(field: HandlerField, value: unknown, path: string, issues: Issues): void {
  if (typeof value === 'string') {
    const { lines, problems } = parseKeyValueText(value);
    for (const problem of problems) issues.push({ path, code: 'invalid_value', message: problem.message });
    const seen = new Set<string>();
    for (const line of lines) {
      if (isReservedKey(line.key)) continue;
      const problem =
        keyProblem(line.key, field.groupedKeys === true) ?? (seen.has(line.key) ? `the key ${line.key} is given twice` : undefined);
      seen.add(line.key);
      if (problem) issues.push({ path, code: 'invalid_value', message: `line ${line.line}: ${problem}` });
      else checkKeyValueValue(field, line.value, childPath(path, line.key), issues);
    }
    return;
  }
  if (!isPlainObject(value)) {
    issues.push(wrongType(path, 'an object or a text of KEY=VALUE lines'));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (isReservedKey(key)) continue;
    const at = childPath(path, key);
    const problem = keyProblem(key, field.groupedKeys === true);
    if (problem) issues.push({ path: at, code: 'invalid_value', message: problem });
    else if (field.keyValue === 'string' && typeof item !== 'string') issues.push(wrongType(at, 'a string'));
    else if (typeof item === 'string') checkKeyValueValue(field, item, at, issues);
  }
}

function checkKeyValueValue(field: HandlerField, value: string, path: string, issues: Issues): void {
  if (!field.secretValues) return;
  if (value === '') issues.push({ path, code: 'invalid_value', message: 'the secret reference is empty' });
  else {
    const problem = formatProblem('secret_ref', value);
    if (problem) issues.push({ path, code: 'invalid_value', message: problem });
  }
}

function checkEntries(field: HandlerField, value: Record<string, unknown>, path: string, issues: Issues): void {
  const entries = field.entries!;
  for (const [key, entry] of Object.entries(value)) {
    const at = childPath(path, key);
    if (!isPlainObject(entry)) {
      issues.push(wrongType(at, 'an object with a mode'));
      continue;
    }
    const mode = entry['mode'];
    if (typeof mode !== 'string' || !entries.modes.includes(mode)) {
      issues.push({ path: childPath(at, 'mode'), code: 'not_in_enum', message: `must be one of ${listOf(entries.modes)}` });
      continue;
    }
    const needs = entries.modeRequires?.[mode];
    if (needs !== undefined && !Object.hasOwn(entry, needs)) {
      issues.push({ path: childPath(at, needs), code: 'missing_required', message: `mode ${mode} needs ${needs}` });
    }
  }
}

function checkNullable(field: HandlerField, value: unknown, path: string, issues: Issues): void {
  if (value === null || !field.variants) return;
  for (const variant of field.variants) {
    if (variant === 'string' && typeof value === 'string') return;
    if (variant === 'string[]' && Array.isArray(value) && value.every((item) => typeof item === 'string')) return;
    if (variant === 'integer' && (isWholeTemplate(value) || (typeof value === 'number' && Number.isInteger(value)))) {
      if (typeof value === 'number') checkBounds(field, value, path, issues);
      return;
    }
  }
  const names = { integer: 'an integer', string: 'a string', 'string[]': 'a list of strings' } as const;
  issues.push(wrongType(path, `null or ${field.variants.map((v) => names[v]).join(' or ')}`));
}

function listOf(values: readonly string[]): string {
  return values.map((v) => (v === '' ? '""' : v)).join(', ');
}
