import { findHandler } from '../../../shared/flows/step-handlers/index.js';
import { problems } from '../../../shared/api/problems.js';
import type { DomainRoutes } from '../../http/types.js';
import { handlerDocs } from './handler-docs.js';

const fieldSchema = {
  type: 'object',
  required: ['key', 'type', 'required', 'meaning'],
  properties: {
    key: { type: 'string' },
    type: { enum: ['string', 'integer', 'number', 'boolean', 'enum', 'string[]', 'object', 'object|null'] },
    required: { type: 'boolean' },
    default: {},
    default_text: { type: 'string' },
    enum: { type: 'array', items: { type: 'string' } },
    item_enum: { type: 'array', items: { type: 'string' } },
    min: { type: 'number' },
    max: { type: 'number' },
    clamped: { type: 'boolean' },
    format: { type: 'string' },
    key_value: { enum: ['string', 'json'] },
    grouped_keys: { type: 'boolean' },
    secret_values: { type: 'boolean' },
    variants: { type: 'array', items: { enum: ['integer', 'string', 'string[]'] } },
    entries: { type: 'object' },
    narrowing: { enum: ['host_access', 'egress'] },
    meaning: { type: 'string' },
  },
};

const docsSchema = {
  type: 'object',
  required: ['id', 'category', 'kinds', 'description', 'internal', 'open_config', 'reserved_key_prefix', 'fields', 'rules', 'markdown'],
  properties: {
    id: { type: 'string' },
    category: { type: 'string' },
    kinds: { type: 'array', items: { enum: ['ACTION', 'CHECK', 'EXECUTE', 'TRANSFER', 'WAIT'] } },
    description: { type: 'string' },
    internal: { type: 'boolean' },
    open_config: { type: 'boolean' },
    reserved_key_prefix: { type: 'string' },
    fields: { type: 'array', items: fieldSchema },
    rules: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, description: { type: 'string' } } } },
    markdown: { type: 'string' },
  },
};

/**
 * `GET /flows/step-handler-types/{handler_id}/docs` (`flow:view`). The catalogue is static data, so
 * there is no service or repository: the handler only looks the id up and renders it. Internal
 * handlers are served too, marked `internal: true`: a flow may hold them (a git-synced flow), and an
 * editor showing such a step needs its docs even though the palette does not offer it.
 */
export function stepHandlerRoutes(): DomainRoutes {
  return {
    'GET /flows/step-handler-types/{handler_id}/docs': {
      docs: {
        summary:
          'Documentation of one step handler: id, category, kinds, description, `internal`, every field (type, default, enum, bounds, required, narrowing, meaning), cross-field rules, the reserved key prefix, and a `markdown` rendering.',
        responses: {
          200: { description: 'The handler documentation', schema: docsSchema },
          404: { description: '`resource_not_found`: no handler with this id' },
        },
      },
      handle(ctx) {
        const handler = findHandler(ctx.state.params.handler_id ?? '');
        if (!handler) throw problems.resourceNotFound('Step handler');
        ctx.body = handlerDocs(handler);
      },
    },
  };
}
