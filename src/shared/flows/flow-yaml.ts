import { isMap, LineCounter, parseDocument, stringify, type Document, type Node } from 'yaml';
import { yamlData } from '../yaml/yaml-data.js';
import { parseDefinitionShape, validateDefinition } from './definition-schema.js';
import type { FlowDefinition } from './definition.js';

/**
 * A flow as the YAML file git holds: what push writes, yaml-preview shows and pull reads back. The
 * definition sits under `definition`, so a JSON path of an issue (`definition.steps[0].handler`) names
 * the same member in the file; `name`, `description` and `version` are for the reader and ignored on pull.
 */
export const FLOW_YAML_KIND = 'svc/flow';

export interface FlowYamlSource {
  readonly name: string;
  readonly description: string | null;
  readonly version: number | 'draft';
  readonly definition: FlowDefinition;
}

export function flowToYaml(flow: FlowYamlSource): string {
  const body = stringify(
    { kind: FLOW_YAML_KIND, name: flow.name, description: flow.description, version: flow.version, definition: flow.definition },
    { lineWidth: 0, aliasDuplicateObjects: false },
  );
  return `# Flow "${flow.name.replace(/[\r\n]/g, ' ')}", managed by svc: pull reads \`definition\`.\n${body}`;
}

/** Where in the file an issue is: 1-based line and column, and the JSON path of the member at fault. */
export interface YamlIssue {
  readonly path: string;
  readonly message: string;
  readonly line: number;
  readonly column: number;
}

/** The reader's members of a flow file, when they are there and of their type (pull ignores them; `svc flows apply` names the flow by them). */
export interface FlowYamlLabels {
  readonly name?: string;
  readonly description?: string | null;
}

export type FlowYamlResult =
  | { readonly ok: true; readonly definition: FlowDefinition; readonly labels: FlowYamlLabels }
  | { readonly ok: false; readonly issues: YamlIssue[] };

/**
 * Reads a flow file. `rules`: check everything commit checks (a pull that commits a version), else only
 * the shape (a pull into the draft, which may be incomplete as any draft).
 */
export function flowFromYaml(text: string, rules: boolean): FlowYamlResult {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      issues: doc.errors.map((error) => {
        const at = error.linePos?.[0] ?? lines.linePos(error.pos[0]);
        return { path: '', message: error.message.split('\n')[0]!, line: at.line, column: at.col };
      }),
    };
  }
  const read = yamlData(doc);
  if (!read.ok) return { ok: false, issues: [{ path: '', message: read.message, line: 1, column: 1 }] };
  const root = read.data;
  if (!isMap(doc.contents) || typeof root !== 'object' || root === null || !('definition' in root)) {
    return { ok: false, issues: [located(doc, lines, 'definition', 'the file must be a mapping with a `definition` member')] };
  }
  const shape = parseDefinitionShape((root as { definition: unknown }).definition, 'definition');
  if (!shape.ok) return { ok: false, issues: shape.issues.map((issue) => located(doc, lines, issue.path, issue.message)) };
  if (rules) {
    const issues = validateDefinition(shape.definition);
    if (issues.length > 0)
      return {
        ok: false,
        issues: issues.map((issue) => located(doc, lines, `definition.${issue.path}`.replace(/\.$/, ''), issue.message)),
      };
  }
  return { ok: true, definition: shape.definition, labels: labelsOf(root as Record<string, unknown>) };
}

function labelsOf(root: Record<string, unknown>): FlowYamlLabels {
  const { name, description } = root;
  return {
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof description === 'string' || description === null ? { description } : {}),
  };
}

/** `definition.steps[0].handler` -> ['definition', 'steps', 0, 'handler']. */
function segments(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) out.push(match[2] !== undefined ? Number(match[2]) : match[1]!);
  return out;
}

/** The issue at the deepest node of its path the file has (a missing member is reported at its parent). */
function located(doc: Document, lines: LineCounter, path: string, message: string): YamlIssue {
  const parts = segments(path);
  for (let depth = parts.length; depth >= 0; depth--) {
    const node = (depth === 0 ? doc.contents : doc.getIn(parts.slice(0, depth), true)) as Node | null | undefined;
    if (node && typeof node === 'object' && 'range' in node && node.range) {
      const at = lines.linePos(node.range[0]);
      return { path, message, line: at.line, column: at.col };
    }
  }
  return { path, message, line: 1, column: 1 };
}
