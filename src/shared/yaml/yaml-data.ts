import type { Document } from 'yaml';

/** How many aliases one document may expand; the `yaml` library's own default, stated where it is relied on. */
const MAX_ALIAS_COUNT = 100;

/**
 * A parsed document's data, or why there is none: `yaml` refuses aliases that expand past the limit (a
 * "billion laughs" document) by throwing a ReferenceError, which is a fault of the document, not of the
 * program reading it. Flow files, configuration bundles and static inventory documents read through it.
 */
export function yamlData(doc: Document): { readonly ok: true; readonly data: unknown } | { readonly ok: false; readonly message: string } {
  try {
    return { ok: true, data: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) };
  } catch (error) {
    if (!(error instanceof ReferenceError)) throw error;
    return { ok: false, message: error.message };
  }
}
