import type { OptionItem } from '../../../shared/api/flow-interface.js';
import type { FlowInput } from '../../../shared/flows/definition.js';
import type { OptionsRepo } from './options-repo.js';

/** What a source is asked: the readable organizations, the input (or target role) asking, its filters and page. */
export interface OptionQuery {
  readonly orgIds: readonly string[];
  readonly input: FlowInput | undefined;
  readonly filter: Readonly<Record<string, string>>;
  readonly q?: string | undefined;
  readonly limit: number;
  readonly offset: number;
}

/** One option source as `GET /flow-interface/option-sources` lists it; `resolve` absent: not available in this build. */
export interface OptionSource {
  readonly kind: string;
  readonly label: string;
  readonly description: string;
  readonly value: string;
  readonly filters: readonly { readonly name: string; readonly description: string }[];
  readonly fits: readonly string[];
  resolve?(query: OptionQuery): Promise<{ rows: OptionItem[]; total: number }>;
}

/**
 * The option sources a launch form may draw from, by kind. The built ones are registered by the flow
 * interface's module; a domain built later registers its own through `register` (replacing one of the
 * same kind), and nothing else changes.
 */
export class OptionSourceRegistry {
  readonly #sources = new Map<string, OptionSource>();

  register(source: OptionSource): void {
    this.#sources.set(source.kind, source);
  }

  get(kind: string): OptionSource | undefined {
    return this.#sources.get(kind);
  }

  list(): OptionSource[] {
    return [...this.#sources.values()];
  }
}

const STRINGY = ['string', 'text', 'json'];

/** A select input's own `options`, filtered and paged here (they live in the definition). */
function staticSource(): OptionSource {
  return {
    kind: 'static',
    label: 'Static list',
    description: "The input's own `options` (select and multiselect inputs).",
    value: 'the option itself',
    filters: [],
    fits: ['select', 'multiselect'],
    async resolve({ input, q, limit, offset }) {
      const needle = q?.toLowerCase();
      const all = (input?.options ?? []).filter((option) => !needle || option.toLowerCase().includes(needle));
      return {
        rows: all.slice(offset, offset + limit).map((option) => ({ value: option, label: option, description: null })),
        total: all.length,
      };
    },
  };
}

/** The sources this build resolves. */
export function builtInOptionSources(repo: OptionsRepo): OptionSource[] {
  return [
    staticSource(),
    {
      kind: 'variables',
      label: 'Variables',
      description: 'Live variables of the organization and the shared one, by name (never their values).',
      value: 'the variable name',
      filters: [{ name: 'type', description: 'string, number, boolean, json or secret_ref' }],
      fits: STRINGY,
      resolve: (query) => repo.variables(query, { type: query.filter.type }),
    },
    {
      kind: 'sites',
      label: 'Sites',
      description: 'Live sites of the organization and the shared one.',
      value: 'the site id',
      filters: [{ name: 'parent_id', description: 'children of this site (any other text: top-level sites)' }],
      fits: STRINGY,
      resolve: (query) => repo.sites(query, { parentId: query.filter.parent_id }),
    },
    {
      kind: 'devices',
      label: 'Devices',
      description: 'Live devices of the organization and the shared one; what a target role offers.',
      value: 'the device id',
      filters: [
        { name: 'site_id', description: 'devices of this site' },
        { name: 'platform', description: 'devices of this platform' },
        { name: 'role', description: 'devices of this role' },
      ],
      fits: [...STRINGY, 'target_role'],
      resolve: (query) => repo.devices(query, { siteId: query.filter.site_id, platform: query.filter.platform, role: query.filter.role }),
    },
    {
      kind: 'inventory_objects',
      label: 'Inventory objects',
      description: "Objects the organization's inventory providers synced (and the shared organization's), stale ones left out.",
      value: 'the object id',
      filters: [
        { name: 'object_type', description: 'the provider object type (e.g. vlan, prefix)' },
        { name: 'provider_id', description: 'objects of this provider (`<type>:<name>[:<org_id>]`)' },
      ],
      fits: STRINGY,
      resolve: (query) => repo.inventoryObjects(query, { objectType: query.filter.object_type, providerId: query.filter.provider_id }),
    },
    {
      kind: 'files',
      label: 'Files',
      description: "Files of the organization's file repositories and the shared organization's, by path.",
      value: 'the file id',
      filters: [
        { name: 'repository_id', description: 'files of this repository' },
        { name: 'folder', description: 'files directly in this folder (`` for the root)' },
        { name: 'content_type', description: 'files of this recorded content type' },
      ],
      fits: STRINGY,
      resolve: (query) =>
        repo.files(query, {
          repositoryId: query.filter.repository_id,
          folder: query.filter.folder,
          contentType: query.filter.content_type,
        }),
    },
  ];
}
