import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../src/shared/catalogue/catalogue.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';

let daemon: TestDaemon;
beforeAll(async () => {
  daemon = await startTestDaemon();
});
afterAll(() => daemon?.close());

type Operation = {
  'x-action': string;
  'x-policy': string;
  security: Record<string, string[]>[];
  parameters: { name: string; in: string }[];
};

describe('the API description', () => {
  it('is OpenAPI 3.1 with every catalogue route, its action, policy and security requirement', async () => {
    const response = await fetch(`${daemon.url}/openapi.json`);
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { openapi: string; paths: Record<string, Record<string, Operation>> };
    expect(doc.openapi).toBe('3.1.0');
    let count = 0;
    for (const route of CATALOGUE.routes) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation, route.key).toBeDefined();
      expect(operation!['x-action']).toBe(route.action);
      expect(operation!['x-policy']).toBe(route.defaultPolicy);
      expect(operation!.parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(route.params);
      if (route.defaultPolicy === 'public') expect(operation!.security).toEqual([]);
      else if (route.defaultPolicy === 'internal') expect(operation!.security).toEqual([{ internalToken: [] }]);
      else expect(operation!.security.length).toBeGreaterThan(0);
      count += 1;
    }
    const documented = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(documented).toBe(count);
  });

  // A refusal is not checked against the declared statuses (SERVICE_CHECK_RESPONSES checks what a handler answers).
  it('declares the 412 of every route taking If-Match', async () => {
    const doc = (await (await fetch(`${daemon.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    for (const [path, method] of [
      ['/sites/{site_id}', 'patch'],
      ['/devices/{device_id}', 'put'],
      ['/schedules/{schedule_id}', 'patch'],
      ['/webhooks/{webhook_id}', 'patch'],
      ['/variables/{variable_id}', 'patch'],
    ] as const) {
      expect(Object.keys(doc.paths[path]![method]!.responses), `${method} ${path}`).toContain('412');
    }
  });

  it('serves Swagger UI, its OAuth redirect page and ReDoc from local files', async () => {
    for (const path of ['/docs', '/redoc', '/docs/oauth2-redirect']) {
      const page = await fetch(daemon.url + path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type'), path).toMatch(/^text\/html/);
      const html = await page.text();
      expect(html, path).not.toMatch(/https?:\/\//);
    }
    for (const path of [
      '/docs?asset=swagger-ui-bundle.js',
      '/docs?asset=swagger-ui.css',
      '/docs?asset=init.js',
      '/redoc?asset=redoc.standalone.js',
      '/docs?asset=oauth2-redirect.js',
    ]) {
      const asset = await fetch(daemon.url + path);
      expect(asset.status, path).toBe(200);
      expect((await asset.arrayBuffer()).byteLength, path).toBeGreaterThan(100);
    }
  });

  it('answers 304 for an asset the browser already has, and 404 for an unknown asset', async () => {
    const first = await fetch(`${daemon.url}/docs?asset=swagger-ui.css`);
    const etag = first.headers.get('etag')!;
    const again = await fetch(`${daemon.url}/docs?asset=swagger-ui.css`, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    const unknown = await fetch(`${daemon.url}/docs?asset=../../package.json`);
    expect(unknown.status).toBe(404);
  });

  it('answers 404 for an empty or repeated asset name, as for an unknown one', async () => {
    for (const path of ['/docs?asset=', '/redoc?asset=redoc.standalone.js&asset=redoc.standalone.js']) {
      const response = await fetch(daemon.url + path);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { code: string }).code, path).toBe('not_found');
    }
  });
});

describe('docs/status.md', () => {
  it('lists every action, built exactly when the daemon serves all its routes', async () => {
    const { readFile } = await import('node:fs/promises');
    const status = await readFile(new URL('../docs/status.md', import.meta.url), 'utf8');
    const listed = new Map(
      [...status.matchAll(/^\| `([a-z_]+:[a-z_]+)` \| [a-z_]+ \| \d+ \| (built|not built) \|$/gm)].map((m) => [m[1]!, m[2]!]),
    );
    const doc = (await (await fetch(`${daemon.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { 'x-action': string; 'x-built': boolean }>>;
    };
    const builtByAction = new Map<string, boolean>();
    for (const operations of Object.values(doc.paths)) {
      for (const op of Object.values(operations))
        builtByAction.set(op['x-action'], (builtByAction.get(op['x-action']) ?? true) && op['x-built']);
    }
    expect(new Set(listed.keys())).toEqual(new Set(CATALOGUE.actions.map((a) => a.action)));
    for (const [action, built] of builtByAction) expect(listed.get(action), action).toBe(built ? 'built' : 'not built');
  });
});
