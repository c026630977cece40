import { z } from 'zod';
import type { Catalogue } from '../../shared/catalogue/catalogue.js';
import type { Policy } from '../../shared/policy/policies.js';
import { SVC_VERSION } from '../../shared/version.js';
import type { EffectivePolicies } from '../authz/effective-policies.js';
import type { MountedRoute, RouteBinding } from './types.js';

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

/**
 * A zod schema as JSON Schema (2020-12, OpenAPI 3.1's dialect): the input side for requests, the output side
 * for answers. zod closes every object on the output side (it strips unknown members); an answer may carry
 * members its schema does not name (the check is not strict), so only objects declared strict stay closed.
 */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    override: ({ zodSchema, jsonSchema: out }) => {
      const def = zodSchema._zod.def;
      if (def.type === 'object' && def.catchall === undefined) delete out.additionalProperties;
    },
  }) as Record<string, unknown>;
  return rest;
}

/** The path parameters (typed by the route's `params` schema where it has one) and the query's, one by one. */
function parameters(route: MountedRoute['route'], binding: RouteBinding | undefined): Record<string, unknown>[] {
  const pathSchema = binding?.params ? jsonSchema(binding.params, 'input') : undefined;
  const pathProperties = (pathSchema?.properties ?? {}) as Record<string, Record<string, unknown>>;
  const path = route.params.map((name) => ({ name, in: 'path', required: true, schema: pathProperties[name] ?? { type: 'string' } }));
  if (!binding?.query) return path;
  const querySchema = jsonSchema(binding.query, 'input');
  const required = new Set((querySchema.required ?? []) as string[]);
  const query = Object.entries((querySchema.properties ?? {}) as Record<string, Record<string, unknown>>).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    schema,
  }));
  return [...path, ...query];
}

function responses(binding: RouteBinding | undefined, action: string): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(binding?.responses ?? {})) {
    answers[status] = response.schema
      ? {
          description: response.description,
          content: { [response.contentType ?? 'application/json']: { schema: jsonSchema(response.schema, 'output') } },
        }
      : { description: response.description };
  }
  if (!binding) answers['501'] = problemResponse(`Not built yet (action ${action}).`);
  answers.default = problemResponse('Error');
  return answers;
}

function requestBody(binding: RouteBinding): Record<string, unknown> | undefined {
  if (!binding.body) return undefined;
  // A parsed request without a body is validated as `{}`: the body is optional exactly when `{}` satisfies the
  // schema. A body the handler reads itself ('raw', 'none') has no such stand-in.
  const required = (binding.bodyMode ?? 'json') !== 'json' || !binding.body.safeParse({}).success;
  return { required, content: { [binding.bodyMediaType ?? 'application/json']: { schema: jsonSchema(binding.body, 'input') } } };
}

/**
 * OpenAPI 3.1 for every catalogue route: its action and policy as `x-` extensions, its security
 * requirement, and for a built route the parameters, body and answers made from the schemas it declares.
 */
export function buildOpenApi(catalogue: Catalogue, mounted: readonly MountedRoute[], policies: EffectivePolicies): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const { route, binding } of mounted) {
    const policy = policies.policyFor(route);
    const operation: Record<string, unknown> = {
      operationId: operationId(route.method, route.path),
      summary: binding?.summary ?? catalogue.actionByName.get(route.action)?.note ?? route.action,
      tags: [route.action.split(':')[0]],
      'x-action': route.action,
      'x-policy': policy,
      'x-default-policy': route.defaultPolicy,
      'x-built': binding !== undefined,
      security: security(policy),
      parameters: parameters(route, binding),
      responses: responses(binding, route.action),
    };
    const body = binding && requestBody(binding);
    if (body) operation.requestBody = body;
    if (binding?.noBody) operation['x-body'] = 'none';
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
