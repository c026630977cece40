import type { FlowDefinition, FlowStep } from './definition.js';

/**
 * Which flow attachments a container step sees, and which attachment paths a definition names: pure, so
 * the daemon (the workers' manifest, commit-time checks) and a worker agree.
 *
 * `mounted_files` (the container steps' common field) is `null` (every attachment), or
 * `{include?: [selectors], exclude?: [selectors]}`: a selector is an attachment's path, or a folder when it
 * ends in `/` (everything under it, at any depth). No `include` means every attachment; `exclude` wins.
 */
export interface MountedFiles {
  readonly include?: readonly string[] | undefined;
  readonly exclude?: readonly string[] | undefined;
}

/** Whether a selector (`a/b.yml`, or the folder `roles/`) covers `path`. */
export function selectorCovers(selector: string, path: string): boolean {
  return selector.endsWith('/') ? path.startsWith(selector) || selector === '/' : path === selector;
}

/** The selectors of a step's `mounted_files`, as read from its configuration (anything unreadable: all). */
export function mountedFilesOf(config: Readonly<Record<string, unknown>> | undefined): MountedFiles | null {
  const raw = config?.mounted_files;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const list = (value: unknown) => (Array.isArray(value) ? value.filter((s): s is string => typeof s === 'string') : undefined);
  const { include, exclude } = raw as Record<string, unknown>;
  return { include: list(include), exclude: list(exclude) };
}

/** The items a step mounts, in the order given. */
export function selectMounted<T extends { readonly path: string }>(items: readonly T[], mounted: MountedFiles | null): T[] {
  if (!mounted) return [...items];
  const { include, exclude = [] } = mounted;
  return items.filter(
    (item) =>
      (include === undefined || include.some((s) => selectorCovers(s, item.path))) && !exclude.some((s) => selectorCovers(s, item.path)),
  );
}

/** One attachment reference of a step that names nothing (paths relative to the definition, as commit's issues). */
export interface AttachmentIssue {
  readonly path: string;
  readonly code: 'unknown_attachment';
  readonly message: string;
}

type Reference = { readonly field: string; readonly kind: 'file' | 'folder' };

/** The configuration fields that name attachments, by handler (docs/flow-attachments.md). */
const REFERENCES: Readonly<Record<string, readonly Reference[]>> = {
  'playbook.run': [
    { field: 'playbook', kind: 'file' },
    { field: 'extra_inventory', kind: 'file' },
    { field: 'requirements_file', kind: 'file' },
  ],
  'iac.plan': [
    { field: 'source_dir', kind: 'folder' },
    { field: 'var_files', kind: 'file' },
  ],
  'iac.apply': [{ field: 'source_dir', kind: 'folder' }],
};

const TEMPLATE = /\{\{/;

/**
 * Every attachment a step's configuration names (`playbook`, `extra_inventory`, `requirements_file`,
 * `source_dir`, `var_files`, and the `mounted_files` include selectors) that `paths` does not hold. Empty values
 * mean "none" or "the root" and templated ones are the run's to know: neither is checked.
 */
export function attachmentIssues(definition: FlowDefinition, paths: readonly string[]): AttachmentIssue[] {
  const files = new Set(paths);
  const folderHolds = (folder: string) => {
    const prefix = folder.endsWith('/') ? folder : `${folder}/`;
    return paths.some((p) => p.startsWith(prefix));
  };
  const issues: AttachmentIssue[] = [];
  definition.steps.forEach((step: FlowStep, i) => {
    const config = (step.config ?? {}) as Record<string, unknown>;
    const missing = (at: string, value: string, kind: 'file' | 'folder') => {
      const there = kind === 'file' ? files.has(value) : folderHolds(value);
      if (!there) issues.push({ path: `steps[${i}].config.${at}`, code: 'unknown_attachment', message: `no attachment ${kind} ${value}` });
    };
    for (const { field, kind } of REFERENCES[step.handler] ?? []) {
      const value = config[field];
      const values = Array.isArray(value) ? value.map((v, j) => [`${field}[${j}]`, v] as const) : [[field, value] as const];
      for (const [at, v] of values) if (typeof v === 'string' && v !== '' && !TEMPLATE.test(v)) missing(at, v, kind);
    }
    // An `exclude` matching nothing excludes nothing, which is harmless; an `include` matching nothing is a typo.
    mountedFilesOf(config)?.include?.forEach((selector, j) => {
      if (TEMPLATE.test(selector) || paths.some((p) => selectorCovers(selector, p))) return;
      issues.push({
        path: `steps[${i}].config.mounted_files.include[${j}]`,
        code: 'unknown_attachment',
        message: `the selector ${selector} matches no attachment`,
      });
    });
  });
  return issues;
}
