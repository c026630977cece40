import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);

export interface Asset {
  readonly body: Buffer;
  readonly type: string;
  readonly etag: string;
}

/** The locally installed files the documentation pages load; nothing comes from a CDN. */
const FILES: Readonly<Record<string, { readonly pkg: string; readonly file: string; readonly type: string }>> = {
  'swagger-ui.css': { pkg: 'swagger-ui-dist', file: 'swagger-ui.css', type: 'text/css' },
  'swagger-ui-bundle.js': { pkg: 'swagger-ui-dist', file: 'swagger-ui-bundle.js', type: 'application/javascript' },
  'swagger-ui-standalone-preset.js': { pkg: 'swagger-ui-dist', file: 'swagger-ui-standalone-preset.js', type: 'application/javascript' },
  'oauth2-redirect.js': { pkg: 'swagger-ui-dist', file: 'oauth2-redirect.js', type: 'application/javascript' },
  'redoc.standalone.js': { pkg: 'redoc', file: 'bundles/redoc.standalone.js', type: 'application/javascript' },
};

export function isAssetName(name: string): boolean {
  return Object.hasOwn(FILES, name);
}

function asset(body: Buffer, type: string): Asset {
  return { body, type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

export function assetFromText(text: string, type: string): Asset {
  return asset(Buffer.from(text), type);
}

/** Loads each asset once per process that asks for it, keeping the daemon's start-up free of this I/O. */
export class AssetCache {
  readonly #loaded = new Map<string, Promise<Asset>>();

  get(name: string): Promise<Asset> {
    let loaded = this.#loaded.get(name);
    if (!loaded) {
      const spec = FILES[name]!;
      const path = join(dirname(require.resolve(`${spec.pkg}/package.json`)), spec.file);
      loaded = readFile(path).then((body) => asset(body, spec.type));
      this.#loaded.set(name, loaded);
    }
    return loaded;
  }
}
