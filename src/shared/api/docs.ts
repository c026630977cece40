import { z } from 'zod';

/** Wire schemas of the API description (`/openapi.json`) and its viewers (`/docs`, `/redoc`, `/docs/oauth2-redirect`). */

/** The OpenAPI 3.1 document, in outline: a client reads it with an OpenAPI tool, not through this schema. */
export const openApiDocument = z.object({
  openapi: z.string(),
  info: z.object({ title: z.string(), version: z.string(), description: z.string().optional() }),
  /** Path -> method -> operation. */
  paths: z.record(z.string(), z.record(z.string(), z.record(z.string(), z.unknown()))),
  components: z.record(z.string(), z.unknown()),
});

/**
 * `?asset=<name>` serves one of the viewer's scripts or styles instead of the page. A repeated one
 * (`?asset=a&asset=b`) names no asset (the empty name) and is answered 404, as an unknown name.
 */
export const viewerQuery = z.object({ asset: z.preprocess((asset) => (Array.isArray(asset) ? '' : asset), z.string().optional()) });

export const htmlPage = z.string();
