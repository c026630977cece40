import type { AppContext, DomainRoutes } from '../../http/types.js';
import { problems } from '../../../shared/api/problems.js';
import { AssetCache, assetFromText, isAssetName, type Asset } from './assets.js';
import { OAUTH2_REDIRECT_PAGE, PAGE_CSP, REDOC_PAGE, SWAGGER_INIT, SWAGGER_PAGE } from './pages.js';

export interface DocsDeps {
  /** The OpenAPI document, already serialised. */
  readonly openApi: () => string;
}

function send(ctx: AppContext, asset: Asset, cacheable: boolean): void {
  ctx.set('ETag', asset.etag);
  ctx.set('Cache-Control', cacheable ? 'public, max-age=86400' : 'no-cache');
  ctx.set('Content-Security-Policy', PAGE_CSP);
  if (ctx.get('if-none-match') === asset.etag) {
    ctx.status = 304;
    return;
  }
  ctx.type = asset.type;
  ctx.body = asset.body;
}

/**
 * The API description and its two viewers. Their scripts are served by the page routes themselves
 * (`/docs?asset=…`, `/redoc?asset=…`) so no path outside the catalogue exists.
 */
export function docsRoutes({ openApi }: DocsDeps): DomainRoutes {
  const assets = new AssetCache();
  const swaggerPage = assetFromText(SWAGGER_PAGE, 'text/html; charset=utf-8');
  const swaggerInit = assetFromText(SWAGGER_INIT, 'application/javascript');
  const redocPage = assetFromText(REDOC_PAGE, 'text/html; charset=utf-8');
  const redirectPage = assetFromText(OAUTH2_REDIRECT_PAGE, 'text/html; charset=utf-8');

  async function page(ctx: AppContext, html: Asset): Promise<void> {
    const name = ctx.query.asset;
    if (name === undefined) return send(ctx, html, false);
    if (name === 'init.js' && html === swaggerPage) return send(ctx, swaggerInit, false);
    if (typeof name !== 'string' || !isAssetName(name)) throw problems.notFound();
    send(ctx, await assets.get(name), true);
  }

  return {
    'GET /openapi.json': {
      docs: { summary: 'This OpenAPI 3.1 document.', responses: { 200: { description: 'OpenAPI document' } } },
      handle(ctx) {
        ctx.type = 'application/json';
        ctx.body = openApi();
      },
    },
    'GET /docs': {
      docs: {
        summary: 'Swagger UI; `?asset=` serves its scripts and styles.',
        responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
      },
      handle: (ctx) => page(ctx, swaggerPage),
    },
    'GET /redoc': {
      docs: {
        summary: 'ReDoc reference; `?asset=` serves its script.',
        responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
      },
      handle: (ctx) => page(ctx, redocPage),
    },
    'GET /docs/oauth2-redirect': {
      docs: {
        summary: "OAuth 2 redirect target of Swagger UI's sign-in.",
        responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
      },
      handle: (ctx) => send(ctx, redirectPage, false),
    },
  };
}
