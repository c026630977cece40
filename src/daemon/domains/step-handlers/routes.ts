import { handlerDocsPath, handlerDocs as handlerDocsSchema } from '../../../shared/api/step-handlers.js';
import { findHandler } from '../../../shared/flows/step-handlers/index.js';
import { problems } from '../../../shared/api/problems.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import { handlerDocs } from './handler-docs.js';

/**
 * `GET /flows/step-handler-types/{handler_id}/docs` (`flow:view`). The catalogue is static data, so
 * there is no service or repository: the handler only looks the id up and renders it. Internal
 * handlers are served too, marked `internal: true`: a flow may hold them (a git-synced flow), and an
 * editor showing such a step needs its docs even though the palette does not offer it.
 */
export function stepHandlerRoutes(): DomainRoutes {
  return {
    'GET /flows/step-handler-types/{handler_id}/docs': route({
      summary:
        'Documentation of one step handler: id, category, kinds, description, `internal`, every field (type, default, enum, bounds, required, narrowing, meaning), cross-field rules, the reserved key prefix, and a `markdown` rendering.',
      params: handlerDocsPath,
      responses: {
        200: { description: 'The handler documentation', schema: handlerDocsSchema },
        404: { description: '`resource_not_found`: no handler with this id' },
      },
      handle(ctx, { params }) {
        const handler = findHandler(params.handler_id);
        if (!handler) throw problems.resourceNotFound('Step handler');
        ctx.body = handlerDocs(handler);
      },
    }),
  };
}
