import { Document, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { BundleIssue } from '../../../../shared/api/config-exchange.js';
import { yamlData } from '../../../../shared/yaml/yaml-data.js';

export type PathSegment = string | number;

/** `variables[2].value`: the JSON path of a place in the bundle, as errors name it. */
export function formatPath(path: readonly PathSegment[]): string {
  return path.reduce<string>((out, seg) => (typeof seg === 'number' ? `${out}[${seg}]` : out ? `${out}.${seg}` : seg), '');
}

/**
 * The bundle document as YAML text. Same data, same text: keys keep the order the engine built them in
 * (sections in apply order, fields in each family's order), no timestamps, no line folding.
 */
export function renderBundle(document: Record<string, unknown>): string {
  const doc = new Document(document);
  doc.commentBefore = ' svc configuration bundle: apply with `svc config plan` then `svc config apply`';
  return doc.toString({ lineWidth: 0 });
}

/** A parsed bundle text: its data, and where each place of it is (for the schema's and families' issues). */
export interface ParsedYaml {
  readonly data: unknown;
  readonly issues: BundleIssue[];
  /** The issue at `path`, with the line and column of the nearest place the document has. */
  issueAt(path: readonly PathSegment[], message: string, keyOf?: string): BundleIssue;
}

/** Parses a bundle's YAML: syntax errors (a duplicate key among them) come back as issues with their line and column. */
export function parseYaml(text: string): ParsedYaml {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number) => {
    const pos = lines.linePos(offset);
    return { line: pos.line, column: pos.col };
  };
  const issues: BundleIssue[] = doc.errors.map((error) => ({ path: '', ...at(error.pos[0]), message: error.message.split('\n')[0]! }));
  const issueAt = (path: readonly PathSegment[], message: string, key?: string): BundleIssue => {
    const found = locate(doc.contents as Node | null, path, key);
    return { path: formatPath(key === undefined ? path : [...path, key]), ...(found ? at(found) : { line: 0, column: 0 }), message };
  };
  return { data: issues.length > 0 ? undefined : toData(doc, issues), issues, issueAt };
}

/** The document's data; aliases expanding past the limit are an issue of the bundle like any other. */
function toData(doc: Document.Parsed, issues: BundleIssue[]): unknown {
  const read = yamlData(doc);
  if (read.ok) return read.data;
  issues.push({ path: '', line: 0, column: 0, message: `aliases expand too far: ${read.message}` });
  return undefined;
}

/** The offset of the deepest node along `path` (of the key `key` in the map there, when given). */
function locate(root: Node | null, path: readonly PathSegment[], key?: string): number | undefined {
  let node: unknown = root;
  let offset = rangeStart(node);
  for (const seg of path) {
    const next = child(node, seg);
    if (next === undefined) return offset;
    node = next;
    offset = rangeStart(node) ?? offset;
  }
  if (key !== undefined && isMap(node)) {
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
    if (pair && isPair(pair)) return rangeStart(pair.key) ?? offset;
  }
  return offset;
}

function child(node: unknown, seg: PathSegment): unknown {
  if (isMap(node)) return node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(seg))?.value ?? undefined;
  if (isSeq(node) && typeof seg === 'number') return node.items[seg];
  return undefined;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as { range?: [number, number, number] } | null)?.range;
  return range ? range[0] : undefined;
}
