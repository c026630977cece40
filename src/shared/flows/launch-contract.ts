import type { FlowInput, FlowTargetRole } from './definition.js';

/**
 * A JSON Schema (2020-12) of a run's `params` for these inputs: what automation clients can check a
 * launch against without knowing the flow's input types. `validateParams` (params.ts) is the authority.
 */
export function paramsJsonSchema(inputs: readonly FlowInput[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const input of inputs) properties[input.name] = inputSchema(input);
  const required = inputs.filter((i) => i.required && (i.default === undefined || i.default === null)).map((i) => i.name);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  };
}

function inputSchema(input: FlowInput): Record<string, unknown> {
  const common = {
    ...(input.label !== undefined ? { title: input.label } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.default !== undefined && input.default !== null ? { default: input.default } : {}),
  };
  const bounds = (min: string, max: string) => ({
    ...(input.min !== undefined ? { [min]: input.min } : {}),
    ...(input.max !== undefined ? { [max]: input.max } : {}),
  });
  switch (input.type) {
    case 'string':
      return {
        type: 'string',
        ...bounds('minLength', 'maxLength'),
        ...(input.pattern !== undefined ? { pattern: `^(?:${input.pattern})$` } : {}),
        ...common,
      };
    case 'text':
      return { type: 'string', ...bounds('minLength', 'maxLength'), ...common };
    case 'integer':
      return { type: 'integer', ...bounds('minimum', 'maximum'), ...common };
    case 'number':
      return { type: 'number', ...bounds('minimum', 'maximum'), ...common };
    case 'boolean':
      return { type: 'boolean', ...common };
    case 'select':
      return { type: 'string', enum: [...(input.options ?? [])], ...common };
    case 'multiselect':
      return { type: 'array', items: { type: 'string', enum: [...(input.options ?? [])] }, uniqueItems: true, ...common };
    case 'json':
      return { ...common };
  }
}

/** Target roles as a launch needs them: how many devices each must get. */
export function targetRequirements(
  roles: readonly FlowTargetRole[],
): { name: string; description: string | null; min_devices: number; max_devices: number | null }[] {
  return roles.map((r) => ({
    name: r.name,
    description: r.description ?? null,
    min_devices: r.min_devices ?? 0,
    max_devices: r.max_devices ?? null,
  }));
}
