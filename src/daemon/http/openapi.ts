import type { Catalogue } from '../../shared/catalogue/catalogue.js';
import type { Policy } from '../../shared/policy/policies.js';
import { SVC_VERSION } from '../../shared/version.js';
import type { EffectivePolicies } from '../authz/effective-policies.js';
import type { MountedRoute } from './types.js';

const problemSchema = {
  type: 'object',
  description: 'RFC 9457 problem details; branch on `code`.',
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    request_id: { type: 'string' },
  },
  required: ['type', 'title', 'status', 'code'],
};

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** The security requirement a policy implies: none for public, the worker header for internal, a bearer token otherwise. */
function security(policy: Policy): Record<string, string[]>[] {
  switch (policy) {
    case 'public':
      return [];
    case 'internal':
      return [{ internalToken: [] }];
    case 'custom':
      return [{ streamTicket: [] }, { bearer: [] }];
    case 'disabled':
      // Nobody may call it: no credential satisfies the operation.
      return [{ disabled: [] }];
    default:
      return [{ bearer: [] }];
  }
}

function operationId(method: string, path: string): string {
  return `${method.toLowerCase()}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;
}

/** OpenAPI 3.1 for every catalogue route: its action and policy as `x-` extensions and its security requirement. */
export function buildOpenApi(catalogue: Catalogue, mounted: readonly MountedRoute[], policies: EffectivePolicies): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { route, binding } of mounted) {
    const docs = binding?.docs;
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(docs?.responses ?? {})) {
      responses[status] = response.schema
        ? { description: response.description, content: { [response.contentType ?? 'application/json']: { schema: response.schema } } }
        : { description: response.description };
    }
    if (!binding) responses['501'] = problemResponse(`Not built yet (action ${route.action}).`);
    responses.default = problemResponse('Error');
    const policy = policies.policyFor(route);
    const operation: Record<string, unknown> = {
      operationId: operationId(route.method, route.path),
      summary: docs?.summary ?? catalogue.actionByName.get(route.action)?.note ?? route.action,
      tags: [route.action.split(':')[0]],
      'x-action': route.action,
      'x-policy': policy,
      'x-default-policy': route.defaultPolicy,
      'x-built': binding !== undefined,
      security: security(policy),
      parameters: route.params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      responses,
    };
    if (docs?.requestSchema) operation.requestBody = { required: true, content: { 'application/json': { schema: docs.requestSchema } } };
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'svc API', version: SVC_VERSION, description: 'Control plane of the svc network-automation platform.' },
    paths,
    components: {
      schemas: { Problem: problemSchema },
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'OpenID Connect access token (JWT) or personal access token.' },
        internalToken: { type: 'apiKey', in: 'header', name: 'X-Internal-Token', description: 'Worker shared secret.' },
        streamTicket: { type: 'apiKey', in: 'query', name: 'ticket', description: 'Single-use stream ticket.' },
        disabled: {
          type: 'apiKey',
          in: 'header',
          name: 'X-Route-Disabled',
          description: 'The route is switched off by a `disabled` override; no credential is accepted.',
        },
      },
    },
  };
}
