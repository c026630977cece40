import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FlowDefinition } from '../src/shared/flows/definition.js';
import { call, seedFlow, startWorld, UNKNOWN_ID, type World } from './helpers/webhooks-fixtures.js';

let world: World;
const ids: Record<string, string> = {};

const EDITED: FlowDefinition = {
  steps: [
    { id: 'prep', handler: 'general.noop', config: {} },
    { id: 'push', handler: 'general.noop', config: {} },
    { id: 'side', handler: 'general.noop', config: {} },
  ],
  edges: [{ from: 'prep', to: 'push' }],
  inputs: [
    { name: 'region', type: 'select', options: ['eu', 'us'], label: 'Region' },
    { name: 'count', type: 'integer' },
  ],
  target_roles: [{ name: 'routers' }],
};

beforeAll(async () => {
  world = await startWorld();
  ids.flow = await seedFlow(world.knex(), world.ids.acme!, { name: 'edited', versions: [EDITED] });
  ids.foreignFlow = await seedFlow(world.knex(), world.ids.globex!, { name: 'theirs', versions: [EDITED] });
  for (const [name, type, value, who, org] of [
    ['ntp_server', 'string', '10.0.0.1', 'alice', 'acme'],
    ['mtu', 'number', 9000, 'alice', 'acme'],
    ['snmp', 'secret_ref', "{{ secret('snmp') }}", 'alice', 'acme'],
    ['dns', 'string', '1.1.1.1', 'sam', 'commons'],
    ['theirs_only', 'string', 'x', 'bob', 'globex'],
  ] as const) {
    const created = await call(world, who, 'POST', '/variables', { name, type, value }, org);
    expect(created.status).toBe(201);
  }
});
afterAll(() => world?.close());

describe('GET /variable-contexts', () => {
  it('lists the namespaces and the readable variables by name and type, never a value', async () => {
    const answer = await call(world, 'carol', 'GET', '/variable-contexts?limit=2');
    expect(answer.status).toBe(200);
    expect(answer.body.namespaces.map((n: { name: string }) => n.name)).toEqual([
      'inputs',
      'params',
      'targets',
      'steps',
      'vars',
      'variables',
      'run',
    ]);
    expect(answer.body).toMatchObject({ total: 4, limit: 2, offset: 0 });
    expect(answer.body.variables).toEqual([
      { name: 'dns', type: 'string', value_type: 'string', shared: true, description: null },
      { name: 'mtu', type: 'number', value_type: 'number', shared: false, description: null },
    ]);
    const text = JSON.stringify((await call(world, 'carol', 'GET', '/variable-contexts?limit=500')).body);
    for (const value of ['10.0.0.1', '9000', 'secret(', '1.1.1.1', 'theirs_only']) expect(text).not.toContain(value);
  });
});

describe('POST /variable-contexts', () => {
  it("names what a step may use: inputs, targets, upstream steps' outputs only, vars, variables, run", async () => {
    const answer = await call(world, 'carol', 'POST', '/variable-contexts', { flow_id: ids.flow, step_id: 'push' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ flow_id: ids.flow, version: 'draft', step_id: 'push' });
    const paths = Object.fromEntries(answer.body.names.map((n: { path: string; type: string }) => [n.path, n.type]));
    expect(paths).toMatchObject({
      'inputs.region': 'string',
      'params.count': 'integer',
      'targets.routers': 'array',
      'steps.prep.outputs': 'object',
      vars: 'object',
      'variables.ntp_server': 'string',
      'variables.snmp': 'string',
      'variables.dns': 'string',
      'run.attempt': 'integer',
    });
    expect(paths['steps.side.outputs']).toBeUndefined();
    expect(paths['variables.theirs_only']).toBeUndefined();
    expect(JSON.stringify(answer.body)).not.toContain('10.0.0.1');
  });

  it("answers 404 for another organization's or an unknown flow, 422 for an unknown step or a step without a flow", async () => {
    for (const flow of [ids.foreignFlow, UNKNOWN_ID])
      expect((await call(world, 'carol', 'POST', '/variable-contexts', { flow_id: flow })).status).toBe(404);
    expect((await call(world, 'carol', 'POST', '/variable-contexts', { flow_id: ids.flow, version: 7 })).status).toBe(404);
    const step = await call(world, 'carol', 'POST', '/variable-contexts', { flow_id: ids.flow, step_id: 'nope' });
    expect([step.status, step.body.errors[0].path]).toEqual([422, 'step_id']);
    expect((await call(world, 'carol', 'POST', '/variable-contexts', { step_id: 'push' })).status).toBe(422);
  });
});

describe('POST /variable-contexts/validate', () => {
  const validate = (body: Record<string, unknown>) => call(world, 'carol', 'POST', '/variable-contexts/validate', body);

  it('accepts known names, with their types and offsets', async () => {
    const answer = await validate({
      flow_id: ids.flow,
      step_id: 'push',
      template: 'set {{ inputs.region }} mtu {{ variables.mtu }} after {{ steps.prep.outputs.rc }} {{ vars.anything }}',
    });
    expect(answer.status).toBe(200);
    expect(answer.body.valid).toBe(true);
    expect(
      answer.body.references.map((r: { expression: string; type: string; offset: number }) => [r.expression, r.type, r.offset]),
    ).toEqual([
      ['inputs.region', 'string', 4],
      ['variables.mtu', 'number', 28],
      ['steps.prep.outputs.rc', 'any', 54],
      ['vars.anything', 'any', 82],
    ]);
  });

  it('names each problem with a code', async () => {
    const answer = await validate({
      flow_id: ids.flow,
      step_id: 'push',
      template:
        "{{ inputs.nope }} {{ steps.side.outputs.x }} {{ steps.ghost.outputs }} {{ secret('x') }} {{ env.HOME }} {{ variables.theirs_only }}",
    });
    expect(answer.body.valid).toBe(false);
    expect(answer.body.issues.map((i: { expression: string; code: string }) => [i.expression, i.code])).toEqual([
      ['inputs.nope', 'unknown_name'],
      ['steps.side.outputs.x', 'step_not_upstream'],
      ['steps.ghost.outputs', 'unknown_name'],
      ["secret('x')", 'not_a_path'],
      ['env.HOME', 'unknown_namespace'],
      ['variables.theirs_only', 'unknown_name'],
    ]);
  });

  it('checks variables and run fields without a flow, and refuses a body without a template', async () => {
    const answer = await validate({ template: '{{ variables.dns }} {{ run.id }} {{ inputs.region }}' });
    expect(answer.body.issues.map((i: { expression: string; code: string }) => [i.expression, i.code])).toEqual([
      ['inputs.region', 'unknown_name'],
    ]);
    expect((await validate({})).status).toBe(422);
  });
});
