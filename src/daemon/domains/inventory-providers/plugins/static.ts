import { parseDocument } from 'yaml';
import { z } from 'zod';
import { OBJECT_TYPE } from '../../../../shared/api/inventory-objects.js';
import { yamlData } from '../../../../shared/yaml/yaml-data.js';
import type { ImportedDevice, ImportedObject, ImportedSite, InventoryPlugin, InventorySource, ListFrom, Page } from './plugin.js';

const MAX_DOCUMENT_CHARS = 4 * 1024 * 1024;
/** The largest file a provider's `document_file_id` may name: as large as an inline document may be. */
export const MAX_DOCUMENT_FILE_BYTES = 4 * 1024 * 1024;
const PAGE = 500;

const configSchema = z
  .object({
    document: z
      .string()
      .min(1)
      .max(MAX_DOCUMENT_CHARS)
      .optional()
      .describe('A YAML document: `sites`, `devices` (lists of items with an `id`) and `objects` (type -> list)'),
    document_file_id: z
      .uuid()
      .optional()
      .describe('A file of the file repositories holding the YAML document (instead of `document`), read at each use'),
  })
  .strict();

const id = z.union([z.string().min(1).max(255), z.number().int()]).transform(String);
const optionalText = z.union([z.string(), z.number()]).transform(String).nullable().optional();
const tagList = z.array(z.union([z.string(), z.number()]).transform(String)).optional();

const documentSchema = z.object({
  sites: z
    .array(z.object({ id, name: z.string(), description: optionalText, address: optionalText, tags: tagList }).passthrough())
    .default([]),
  devices: z
    .array(
      z
        .object({
          id,
          name: z.string(),
          hostname: optionalText,
          platform: optionalText,
          role: optionalText,
          site: optionalText,
          serial: optionalText,
          tags: tagList,
          attributes: z.record(z.string(), z.unknown()).optional(),
        })
        .passthrough(),
    )
    .default([]),
  // A type as the object routes name it (anything else could be imported but never read).
  objects: z
    .record(
      z.string().regex(OBJECT_TYPE, 'an object type: lower case, digits and _, starting with a letter, at most 64 characters'),
      z.array(z.object({ id, name: z.string() }).passthrough()),
    )
    .default({}),
});
type StaticDocument = z.infer<typeof documentSchema>;

export interface DocumentError {
  readonly path: string;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
}

/** Exactly one of `document` and `document_file_id`; an inline document's syntax and shape errors. */
function checkConfig(config: Record<string, unknown>): DocumentError[] {
  if ((config.document === undefined) === (config.document_file_id === undefined)) {
    return [{ path: 'config', message: 'give exactly one of document and document_file_id' }];
  }
  return typeof config.document === 'string' ? checkDocument(config.document, 'config.document') : [];
}

/** A YAML document's syntax and shape errors (under `at`), with the line and column of a syntax error. */
export function checkDocument(text: string, at: string): DocumentError[] {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) {
    return doc.errors.map((error) => ({
      path: at,
      message: error.message.split('\n')[0]!,
      ...(error.linePos ? { line: error.linePos[0].line, column: error.linePos[0].col } : {}),
    }));
  }
  const read = yamlData(doc);
  if (!read.ok) return [{ path: at, message: read.message }];
  const shaped = documentSchema.safeParse(read.data ?? {});
  if (shaped.success) return [];
  return shaped.error.issues.map((issue) => ({ path: [at, ...issue.path.map(String)].join('.'), message: issue.message }));
}

/** A static inventory: every listing is the document's, paged by offset; there is nothing to reach. */
class StaticSource implements InventorySource {
  readonly objectTypes: readonly string[];
  constructor(private readonly doc: StaticDocument) {
    this.objectTypes = Object.keys(doc.objects);
  }

  test(): Promise<Record<string, unknown>> {
    return Promise.resolve({ sites: this.doc.sites.length, devices: this.doc.devices.length });
  }

  discover() {
    const objects = Object.fromEntries(Object.entries(this.doc.objects).map(([type, list]) => [type, list.length]));
    return Promise.resolve({ sites: this.doc.sites.length, devices: this.doc.devices.length, objects });
  }

  sites(from: ListFrom): Promise<Page<ImportedSite>> {
    return slice(this.doc.sites, from, (s) => ({
      external_id: s.id,
      name: s.name,
      description: s.description ?? null,
      address: s.address ?? null,
      tags: s.tags ?? [],
      last_updated: null,
    }));
  }

  devices(from: ListFrom): Promise<Page<ImportedDevice>> {
    return slice(this.doc.devices, from, (d) => ({
      external_id: d.id,
      name: d.name,
      hostname: d.hostname ?? null,
      platform: d.platform ?? null,
      role: d.role ?? null,
      site_external_id: d.site ?? null,
      serial: d.serial ?? null,
      tags: d.tags ?? [],
      attributes: d.attributes ?? {},
      last_updated: null,
    }));
  }

  objects(type: string, from: ListFrom): Promise<Page<ImportedObject>> {
    return slice(this.doc.objects[type] ?? [], from, ({ id: external, name, ...data }) => ({
      external_id: external,
      name,
      data,
      last_updated: null,
    }));
  }
}

function slice<S, T>(list: readonly S[], from: ListFrom, map: (item: S) => T): Promise<Page<T>> {
  const offset = from.cursor === null ? 0 : Number(from.cursor) || 0;
  const end = offset + PAGE;
  return Promise.resolve({ items: list.slice(offset, end).map(map), malformed: 0, next: end < list.length ? String(end) : null });
}

export const staticPlugin: InventoryPlugin = {
  type: 'static',
  label: 'Static YAML document',
  description:
    'A YAML document, inline or a file of the file repositories: sites, devices and objects of the types it names; nothing is fetched.',
  incremental: false,
  objectTypes: [],
  credential: 'none',
  configSchema,
  check: checkConfig,
  // A document named by file is read into `document` before the source is opened (static-documents.ts).
  open: (config) => new StaticSource(documentSchema.parse(parseDocument(String(config.document)).toJS() ?? {})),
};
