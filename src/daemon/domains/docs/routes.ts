import { z } from 'zod';
import { htmlPage, openApiDocument, viewerQuery } from '../../../shared/api/docs.js';
import type { AppContext, DomainRoutes, ResponseDeclarations } from '../../http/types.js';
import { problems } from '../../../shared/api/problems.js';
import { route } from '../../http/route.js';
import { AssetCache, assetFromText, isAssetName, type Asset } from './assets.js';
import { OAUTH2_REDIRECT_PAGE, PAGE_CSP, REDOC_PAGE, SWAGGER_INIT, SWAGGER_PAGE } from './pages.js';

export interface DocsDeps {
  /** The OpenAPI document, already serialised. */
  readonly openApi: () => string;
}

/**
 * The document is answered as the text `openApi()` serialised once, which the response check (SERVICE_CHECK_RESPONSES)
 * would see as a JSON string: it reads the text back first. /openapi.json shows the document's schema (the output side).
 */
const servedOpenApiDocument = z.preprocess((body) => (typeof body === 'string' ? JSON.parse(body) : body), openApiDocument);

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

/** A page's answers: the page, or 304 when the browser has it already. */
function pageAnswers(description: string): ResponseDeclarations {
  return {
    200: { description, contentType: 'text/html', schema: htmlPage },
    304: { description: 'Not modified: the `If-None-Match` ETag is current' },
  };
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

  async function page(ctx: AppContext, html: Asset, name: string | undefined): Promise<void> {
    if (name === undefined) return send(ctx, html, false);
    if (name === 'init.js' && html === swaggerPage) return send(ctx, swaggerInit, false);
    if (!isAssetName(name)) throw problems.notFound();
    send(ctx, await assets.get(name), true);
  }

  return {
    'GET /openapi.json': route({
      summary: 'This OpenAPI 3.1 document.',
      responses: { 200: { description: 'OpenAPI document', schema: servedOpenApiDocument } },
      handle(ctx) {
        ctx.type = 'application/json';
        ctx.body = openApi();
      },
    }),
    'GET /docs': route({
      summary: 'Swagger UI; `?asset=` serves its scripts and styles.',
      query: viewerQuery,
      responses: pageAnswers('HTML page (with `?asset=`, the script or style sheet)'),
      handle: (ctx, { query }) => page(ctx, swaggerPage, query.asset),
    }),
    'GET /redoc': route({
      summary: 'ReDoc reference; `?asset=` serves its script.',
      query: viewerQuery,
      responses: pageAnswers('HTML page (with `?asset=`, the script)'),
      handle: (ctx, { query }) => page(ctx, redocPage, query.asset),
    }),
    'GET /docs/oauth2-redirect': route({
      summary: "OAuth 2 redirect target of Swagger UI's sign-in.",
      responses: pageAnswers('HTML page'),
      handle: (ctx) => send(ctx, redirectPage, false),
    }),
  };
}
