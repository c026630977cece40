import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  findHandler,
  paletteHandlers,
  RESERVED_KEY_PREFIX,
  STEP_HANDLERS,
  type HandlerField,
} from '../src/shared/flows/step-handlers/index.js';

/**
 * Holds the catalogue equal to the spec's "Step handler configuration schemas": the markdown is parsed
 * here, table by table, and compared in both directions (handler ids, field keys, types, defaults, enum
 * values, required, kinds, categories).
 */

interface SpecField {
  key: string;
  type: string;
  enum?: string[];
  /** `undefined` when the spec shows "–". */
  default?: unknown;
  /** The spec's default cell when it describes rather than gives a value. */
  defaultText?: string;
  required: boolean;
}

interface SpecHandler {
  id: string;
  category?: string;
  kinds?: string[];
  internal: boolean;
  fields: SpecField[];
}

const SPEC = readFileSync(new URL('../../shared/spec/webhooks-and-step-handlers.md', import.meta.url), 'utf8');

function section(text: string, from: string, to: string): string {
  const start = text.indexOf(from);
  const end = text.indexOf(to, start);
  if (start < 0 || end < 0) throw new Error(`spec section ${from} not found`);
  return text.slice(start, end);
}

/** Table rows under a heading, each as cells (escaped pipes not used by this spec). */
function tableRows(body: string): string[][] {
  const rows = body
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  return rows.slice(2); // header and separator
}

function typeOf(cell: string): { type: string; enum?: string[] } {
  if (cell.startsWith('enum')) return { type: 'enum', enum: [...cell.matchAll(/`([^`]*)`/g)].map((m) => m[1]!) };
  const map: Record<string, string> = { 'array of string': 'string[]', 'object or null': 'object|null' };
  return { type: map[cell] ?? cell };
}

function defaultOf(cell: string, type: string): Pick<SpecField, 'default' | 'defaultText' | 'required'> {
  const required = cell.includes('(required)');
  const value = cell.replace('(required)', '').trim();
  if (value === '–' || value === '') return { required };
  if (value === '""') return { default: '', required };
  if (value === 'null') return { default: null, required };
  if (value === 'true' || value === 'false') return { default: value === 'true', required };
  const quoted = /^`([^`]*)`$/.exec(value);
  if (quoted) return { default: quoted[1], required };
  if ((type === 'integer' || type === 'number') && /^\d+(\.\d+)?$/.test(value)) return { default: Number(value), required };
  if (/\s/.test(value)) return { defaultText: value, required };
  return { default: value, required };
}

function fieldFromRow(key: string, typeCell: string, defaultCell: string, meaning: string): SpecField {
  const type = typeOf(typeCell);
  const def = defaultOf(defaultCell, type.type);
  return { key, ...type, ...def, required: def.required || /^required\b/.test(meaning) };
}

function kindsOf(text: string): string[] {
  return text
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);
}

/** Splits at `separator` outside parentheses. */
function splitTop(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (depth === 0 && text.startsWith(separator, i)) {
      parts.push(current);
      current = '';
      i += separator.length - 1;
    } else current += ch;
  }
  parts.push(current);
  return parts.map((p) => p.trim()).filter(Boolean);
}

/** `image_name string ""`, `transfer_method enum \`auto\`,\`http\` default \`auto\``, `file_ids array of string (…)`, `dest_fs`. */
function netosItem(item: string, shared: Map<string, SpecField>): SpecField {
  const text = item.replace(/\s*\(.*\)\s*$/s, (m) => (m.includes('required') ? ' (required)' : '')).trim();
  const [key, ...rest] = text.split(' ');
  if (rest.length === 0) return shared.get(key!)!;
  const remainder = rest.join(' ');
  if (remainder.startsWith('enum')) {
    const m = /^enum (.*) default `([^`]*)`$/.exec(remainder)!;
    return { key: key!, type: 'enum', enum: [...m[1]!.matchAll(/`([^`]*)`/g)].map((x) => x[1]!), default: m[2], required: false };
  }
  const typed = /^(array of string|string|integer|boolean|number)\s*(.*)$/.exec(remainder)!;
  const type = typeOf(typed[1]!).type;
  return { key: key!, type, ...defaultOf(typed[2]!.trim() || '–', type) };
}

function parseSpec(): { handlers: SpecHandler[]; common: SpecField[] } {
  const schemas = section(SPEC, '### Step handler configuration schemas', '\n## States and transitions');
  const parts = schemas.split('\n#### ').slice(1);
  const handlers: SpecHandler[] = [];
  let common: SpecField[] = [];
  for (const part of parts) {
    const [heading, ...bodyLines] = part.split('\n');
    const body = bodyLines.join('\n');
    if (heading!.startsWith('Common container-step fields')) {
      common = tableRows(body).map(([k, t, d, m]) => fieldFromRow(k!, t!, d!, m!));
    } else if (heading!.startsWith('netos.upgrade.*')) {
      const category = /category (\w+)/.exec(heading!)![1];
      const shared = new Map<string, SpecField>();
      for (const m of body.matchAll(/`(\w+)` \((\w+)((?:,? `[^`]+`)*), default `?([^`,)]+)`?/g)) {
        const type = m[2]!;
        const values = [...m[3]!.matchAll(/`([^`]*)`/g)].map((x) => x[1]!);
        shared.set(m[1]!, { key: m[1]!, type, ...(values.length > 0 ? { enum: values } : {}), ...defaultOf(m[4]!, type) });
      }
      const everywhere = ['upgrade_mode', 'max_parallel_devices'].map((k) => shared.get(k)!);
      for (const [id, kinds, additional] of tableRows(body)) {
        const fields = [...everywhere, ...splitTop(additional!, '; ').map((item) => netosItem(item, shared))];
        handlers.push({ id: id!, category, kinds: kindsOf(kinds!), internal: false, fields });
      }
    } else if (heading!.startsWith('netcli.')) {
      for (const m of heading!.matchAll(/(netcli\.\w+) \(([^)]+)\)/g)) {
        handlers.push({ id: m[1]!, kinds: kindsOf(m[2]!), internal: false, fields: [] });
      }
      for (const [id, k, t, d, m] of tableRows(body)) handlers.find((h) => h.id === id)!.fields.push(fieldFromRow(k!, t!, d!, m!));
    } else if (heading!.startsWith('probe.*')) {
      const category = /category (\w+)/.exec(heading!)![1];
      let current: SpecHandler | undefined;
      for (const [id, kinds, k, t, d, m] of tableRows(body)) {
        if (id) {
          current = { id, category, kinds: kindsOf(kinds!), internal: false, fields: [] };
          handlers.push(current);
        }
        current!.fields.push(fieldFromRow(k!, t!, d!, m!));
      }
    } else if (heading!.startsWith('Internal handlers')) {
      for (const m of body.matchAll(/`([a-z_]+\.[a-z_]+)`/g)) handlers.push({ id: m[1]!, internal: true, fields: [] });
    } else {
      const m = /^(\S+?)(?: \([^)]*\))?, category (\w+), kinds? (.+)$/.exec(heading!);
      if (!m) throw new Error(`unparsed heading ${heading}`);
      const fields: SpecField[] = [];
      const plus = /Fields: C plus(.*?):\s*$/m.exec(body);
      if (plus) {
        fields.push(...common);
        // iac.apply: "C plus `stop_grace_seconds` (120) and `secret_env` as in `iac.plan`, and:"
        for (const extra of plus[1]!.matchAll(/`([a-z_]+)`(?: \((\d+)\))?/g)) {
          const fromPlan = handlers.find((h) => h.id === 'iac.plan')!.fields.find((f) => f.key === extra[1])!;
          fields.push({ ...fromPlan, ...(extra[2] ? { default: Number(extra[2]) } : {}) });
        }
      }
      for (const [k, t, d, meaning] of tableRows(body)) {
        if (t === 'as in C') {
          for (const key of k!.split(',').map((s) => s.trim())) fields.push(common.find((f) => f.key === key)!);
        } else fields.push(fieldFromRow(k!, t!, d!, meaning!));
      }
      handlers.push({ id: m[1]!, category: m[2], kinds: kindsOf(m[3]!), internal: false, fields });
    }
  }
  return { handlers, common };
}

const { handlers: spec, common } = parseSpec();

describe('the step handler catalogue', () => {
  it('reads the spec (sanity of the parser)', () => {
    expect(common.map((f) => f.key)).toEqual([
      'timeout_seconds',
      'memory',
      'cpus',
      'env',
      'egress_mode',
      'egress_allow',
      'egress_deny',
      'mounted_files',
    ]);
    expect(spec.length).toBeGreaterThanOrEqual(27);
  });

  it('has exactly the handler ids of the spec', () => {
    expect(STEP_HANDLERS.map((h) => h.id).sort()).toEqual(spec.map((h) => h.id).sort());
    expect(new Set(STEP_HANDLERS.map((h) => h.id)).size).toBe(STEP_HANDLERS.length);
  });

  it("marks exactly the spec's internal handlers internal and keeps them out of the palette", () => {
    expect(
      STEP_HANDLERS.filter((h) => h.internal)
        .map((h) => h.id)
        .sort(),
    ).toEqual(['flow.git_sync', 'general.noop', 'monitor.start', 'monitor.stop']);
    expect(
      spec
        .filter((h) => h.internal)
        .map((h) => h.id)
        .sort(),
    ).toEqual(['flow.git_sync', 'general.noop', 'monitor.start', 'monitor.stop']);
    expect(
      paletteHandlers()
        .map((h) => h.id)
        .sort(),
    ).toEqual(
      spec
        .filter((h) => !h.internal)
        .map((h) => h.id)
        .sort(),
    );
  });

  describe.each(spec.map((h) => [h.id, h] as const))('%s', (id, specHandler) => {
    const handler = findHandler(id)!;

    it("has the spec's category and kinds", () => {
      if (specHandler.category) expect(handler.category).toBe(specHandler.category);
      if (specHandler.kinds) expect([...handler.kinds]).toEqual(specHandler.kinds);
    });

    it("has exactly the spec's field keys", () => {
      expect(handler.fields.map((f) => f.key).sort()).toEqual(specHandler.fields.map((f) => f.key).sort());
      expect(new Set(handler.fields.map((f) => f.key)).size).toBe(handler.fields.length);
    });

    it.each(specHandler.fields.map((f) => [f.key, f] as const))(
      "field %s has the spec's type, default, enum and required",
      (key, specField) => {
        const field = handler.fields.find((f) => f.key === key) as HandlerField;
        expect(field.type).toBe(specField.type);
        expect(field.default).toEqual(specField.default);
        expect(field.defaultText).toBe(specField.defaultText);
        if (specField.type === 'enum') expect([...(field.enum ?? [])]).toEqual(specField.enum);
        expect(field.required === true).toBe(specField.required);
      },
    );
  });

  it('reuses one list of common container fields', () => {
    for (const id of ['playbook.run', 'iac.plan', 'iac.apply']) {
      for (const field of common) expect(findHandler(id)!.fields.find((f) => f.key === field.key)).toBeDefined();
    }
  });

  it('marks the narrowed options', () => {
    const narrowed = (id: string) =>
      Object.fromEntries(
        findHandler(id)!
          .fields.filter((f) => f.narrowing)
          .map((f) => [f.key, f.narrowing]),
      );
    expect(narrowed('container.run')).toEqual({
      attach_docker_socket: 'host_access',
      privileged: 'host_access',
      pid_mode: 'host_access',
      extra_mounts: 'host_access',
      network_mode: 'host_access',
      egress_mode: 'egress',
      egress_allow: 'egress',
      egress_deny: 'egress',
    });
    for (const id of ['playbook.run', 'iac.plan', 'iac.apply']) {
      expect(narrowed(id)).toEqual({ egress_mode: 'egress', egress_allow: 'egress', egress_deny: 'egress' });
    }
  });

  it('reserves the SERVICE_ key prefix', () => {
    expect(RESERVED_KEY_PREFIX).toBe('SERVICE_');
  });

  it('gives every field a meaning and keeps defaults inside bounds and enums', () => {
    for (const handler of STEP_HANDLERS) {
      for (const field of handler.fields) {
        expect(field.meaning.length, `${handler.id}.${field.key}`).toBeGreaterThan(0);
        if (typeof field.default === 'number') {
          if (field.min !== undefined) expect(field.default).toBeGreaterThanOrEqual(field.min);
          if (field.max !== undefined) expect(field.default).toBeLessThanOrEqual(field.max);
        }
        if (field.enum && field.default !== undefined) expect(field.enum).toContain(field.default);
      }
    }
  });
});
