import type { Command } from 'commander';
import type { Context } from '../../runtime/context.js';
import { printJson } from '../../runtime/io.js';
import { flag, jsonFlag } from '../shared.js';
import type { Invoke } from '../verb.js';
import type { SiteTreeNode } from './types.js';

export interface SitesTreeOptions {
  readonly json: boolean;
}

export function define(command: Command): void {
  jsonFlag(command.description('Every live site the organization reads, nested under its parent, children by name.'));
}

export const invoke: Invoke = ({ raw, ctx }) => runSitesTree({ json: flag.json(raw) }, ctx);

/** The tree as indented lines: two spaces a level, then the name, the id and, for the shared organization's, a mark. */
export function treeLines(nodes: readonly SiteTreeNode[], depth = 0): string[] {
  return nodes.flatMap((node) => [
    `${'  '.repeat(depth)}${node.name}  ${node.id}${node.shared ? '  (shared)' : ''}`,
    ...treeLines(node.children, depth + 1),
  ]);
}

/** `GET /sites/tree`. `--json`: the daemon's `{items}`. */
export async function runSitesTree(options: SitesTreeOptions, ctx: Context): Promise<void> {
  const tree = (await ctx.apiClient().request({ method: 'GET', path: '/sites/tree' })).body as { items: SiteTreeNode[] };
  if (options.json) return printJson(ctx.io, tree);
  if (tree.items.length === 0) return ctx.io.err('No sites.\n');
  ctx.io.out(`${treeLines(tree.items).join('\n')}\n`);
}
