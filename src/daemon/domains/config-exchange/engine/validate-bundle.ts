import type { z } from 'zod';
import type { BundleIssue } from '../../../../shared/api/config-exchange.js';
import { problem, type Problem } from '../../../../shared/api/problem.js';
import type { BundleItem, ResourceFamily } from '../family.js';
import { bundleSchema } from './bundle-schema.js';
import { parseYaml, type ParsedYaml, type PathSegment } from './bundle-yaml.js';

/** A bundle that passed: its organization and its sections, each item parsed by its family's schema. */
export interface Bundle {
  readonly org: string | undefined;
  readonly sections: ReadonlyMap<string, readonly BundleItem[]>;
}

const MAX_ISSUES = 100;

export function bundleInvalid(issues: readonly BundleIssue[]): Problem {
  const shown = issues.slice(0, MAX_ISSUES);
  const first = shown[0];
  const where = first
    ? ` (first: line ${first.line}, column ${first.column}${first.path ? `, at ${first.path}` : ''}: ${first.message})`
    : '';
  return problem('bundle_invalid', `The bundle has ${issues.length} error(s); nothing was applied${where}.`, {
    errors: shown,
  });
}

/**
 * Parses and checks a bundle's text: YAML syntax, the bundle schema, each family's own rules (per item and
 * per section), and keys unique within a section. Every issue is reported (up to 100) with its path, line and column; any issue
 * refuses the whole bundle with 422 `bundle_invalid`.
 */
export function validateBundle(text: string, families: readonly ResourceFamily[]): Bundle {
  const parsed = parseYaml(text);
  if (parsed.issues.length > 0) throw bundleInvalid(parsed.issues);
  const result = bundleSchema(families).safeParse(parsed.data);
  if (!result.success) throw bundleInvalid(result.error.issues.map((issue) => schemaIssue(parsed, issue)));
  const data = result.data as Record<string, unknown>;
  const issues: BundleIssue[] = [];
  const sections = new Map<string, BundleItem[]>();
  for (const family of families) {
    const items = data[family.name] as BundleItem[] | undefined;
    if (items === undefined) continue;
    const seen = new Map<string, number>();
    items.forEach((item, index) => {
      const key = family.keyOf(item);
      const earlier = seen.get(key);
      if (earlier !== undefined) issues.push(parsed.issueAt([family.name, index], `duplicate key "${key}" (also item ${earlier})`));
      seen.set(key, index);
      for (const issue of family.check?.(item) ?? []) {
        const inner = issue.path ? issue.path.split('.') : [];
        issues.push(parsed.issueAt([family.name, index, ...inner], issue.message));
      }
    });
    for (const issue of family.checkSection?.(items) ?? []) {
      const inner = issue.path ? issue.path.split('.') : [];
      issues.push(parsed.issueAt([family.name, issue.index, ...inner], issue.message));
    }
    sections.set(family.name, items);
  }
  if (issues.length > 0) throw bundleInvalid(issues);
  return { org: data.org as string | undefined, sections };
}

function schemaIssue(parsed: ParsedYaml, issue: z.core.$ZodIssue): BundleIssue {
  const path = issue.path.filter((seg): seg is PathSegment => typeof seg !== 'symbol');
  if (issue.code === 'unrecognized_keys') return parsed.issueAt(path, `unknown field "${issue.keys[0]}"`, issue.keys[0]);
  return parsed.issueAt(path, issue.message);
}
