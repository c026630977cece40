import { describe, expect, it } from 'vitest';
import type { Assignment } from '../src/shared/api/workers.js';
import type { ApprovalRequest } from '../src/worker/callbacks.js';
import { executionOrder } from '../src/worker/dag.js';
import { RUNNABLE_HANDLERS } from '../src/worker/handlers/index.js';
import { DaemonAnswerError } from '../src/worker/http-client.js';
import type { StepHandlerRun } from '../src/worker/handlers/types.js';
import { SILENT_LOG } from '../src/worker/log.js';
import { RunControl } from '../src/worker/run-control.js';
import { executeRun } from '../src/worker/run-executor.js';
import { renderConfig, TemplateError } from '../src/worker/templates.js';
import { assignmentOf, RecordingCallbacks } from './helpers/worker-fakes.js';

const step = (id: string, handler = 'general.noop', config: Record<string, unknown> = {}) => ({ id, handler, config });

function run(
  definition: Record<string, unknown>,
  options: {
    control?: RunControl;
    handlers?: ReadonlyMap<string, StepHandlerRun>;
    params?: Record<string, unknown>;
    assignment?: Partial<Assignment>;
  } = {},
) {
  const callbacks = new RecordingCallbacks();
  const control = options.control ?? new RunControl();
  const outcome = executeRun({
    assignment: assignmentOf(definition, { ...(options.params ? { params: options.params } : {}), ...options.assignment }),
    callbacks,
    control,
    draining: () => false,
    log: SILENT_LOG,
    ...(options.handlers ? { handlers: options.handlers } : {}),
  });
  return { callbacks, control, outcome };
}

/** The handler table with a recording handler under `test.record` (outputs: its step id). */
function withRecorder(order: string[]): ReadonlyMap<string, StepHandlerRun> {
  return new Map([...RUNNABLE_HANDLERS, ['general.noop', async ({ step }) => (order.push(step.id), { outputs: { from: step.id } })]]);
}

describe('executionOrder', () => {
  it('runs each step after all its predecessors, in the listed order among ready ones', () => {
    // d needs b and c; c is listed before b but needs a.
    const { order, unreachable } = executionOrder({
      steps: [step('d'), step('c'), step('b'), step('a')],
      edges: [
        { from: 'a', to: 'c' },
        { from: 'b', to: 'd' },
        { from: 'c', to: 'd' },
      ],
    });
    expect(order.map((s) => s.id)).toEqual(['b', 'a', 'c', 'd']);
    expect(unreachable).toEqual([]);
  });

  it('reports steps on a cycle as unreachable', () => {
    const { order, unreachable } = executionOrder({
      steps: [step('a'), step('b'), step('c')],
      edges: [
        { from: 'b', to: 'c' },
        { from: 'c', to: 'b' },
      ],
    });
    expect(order.map((s) => s.id)).toEqual(['a']);
    expect(unreachable.map((s) => s.id)).toEqual(['b', 'c']);
  });
});

describe('executeRun', () => {
  it('runs the DAG in dependency order, each step as a step run, and ends the run with the last step outputs', async () => {
    const order: string[] = [];
    const { callbacks, outcome } = run(
      {
        steps: [step('last'), step('first'), step('middle')],
        edges: [
          { from: 'first', to: 'middle' },
          { from: 'middle', to: 'last' },
        ],
      },
      { handlers: withRecorder(order) },
    );
    expect(await outcome).toBe('finished');
    expect(order).toEqual(['first', 'middle', 'last']);
    expect(callbacks.of('createStepRun').map((c) => c.body)).toEqual(
      ['first', 'middle', 'last'].map((id) => ({ step_id: id, handler: 'general.noop', status: 'running' })),
    );
    expect(callbacks.of('patchStepRun').map((c) => c.body.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(callbacks.of('finishRun')).toEqual([{ kind: 'finishRun', body: { status: 'succeeded', outputs: { from: 'last' } } }]);
    // Each step run is created, then ended, before the next one starts.
    expect(callbacks.calls.filter((c) => c.kind !== 'postEvents').map((c) => c.kind)).toEqual([
      'createStepRun',
      'patchStepRun',
      'createStepRun',
      'patchStepRun',
      'createStepRun',
      'patchStepRun',
      'finishRun',
    ]);
  });

  it('stops at the first failing step and fails the run with its error', async () => {
    const handlers = new Map<string, StepHandlerRun>([
      ['general.noop', async () => ({ outputs: {} })],
      ['general.sleep', async () => Promise.reject(new Error('boom'))],
    ]);
    const { callbacks, outcome } = run(
      {
        steps: [step('a'), step('b', 'general.sleep'), step('c')],
        edges: [
          { from: 'a', to: 'b' },
          { from: 'b', to: 'c' },
        ],
      },
      { handlers },
    );
    expect(await outcome).toBe('finished');
    expect(callbacks.of('createStepRun').map((c) => c.body.step_id)).toEqual(['a', 'b']);
    expect(callbacks.of('patchStepRun').map((c) => c.body.status)).toEqual(['succeeded', 'failed']);
    expect(callbacks.of('finishRun')[0]!.body).toEqual({
      status: 'failed',
      error: { code: 'handler_error', message: 'boom', step_id: 'b' },
    });
  });

  it('refuses a handler it cannot run with a handler_unavailable event and error, before running any step', async () => {
    const { callbacks, outcome } = run({
      steps: [step('first'), step('deploy', 'container.run', { image: 'alpine:3' })],
      edges: [{ from: 'first', to: 'deploy' }],
    });
    expect(await outcome).toBe('finished');
    expect(callbacks.of('createStepRun').map((c) => c.body.step_id)).toEqual(['deploy']);
    const [event] = callbacks.events();
    expect(event).toMatchObject({
      worker_seq: 1,
      type: 'handler_unavailable',
      step_id: 'deploy',
      data: { handler: 'container.run', needs: 'container_engine' },
    });
    expect(typeof event!.data!.reason).toBe('string');
    expect(callbacks.of('patchStepRun')[0]!.body).toMatchObject({
      status: 'failed',
      error: { code: 'handler_unavailable', handler: 'container.run' },
    });
    expect(callbacks.of('finishRun')[0]!.body).toMatchObject({
      status: 'failed',
      error: { code: 'handler_unavailable', step_id: 'deploy' },
    });
  });

  it('passes outputs and run vars on through templates, and stores run vars', async () => {
    const { callbacks, outcome } = run(
      {
        steps: [
          step('seed', 'general.noop', { outputs: { answer: 42 }, run_vars: { change: '{{ inputs.change_id }}' } }),
          step('echo', 'general.noop', { outputs: { got: '{{ steps.seed.outputs.answer }}', text: 'change {{ vars.change }}' } }),
        ],
        edges: [{ from: 'seed', to: 'echo' }],
      },
      { params: { change_id: 'CHG1' } },
    );
    expect(await outcome).toBe('finished');
    expect(callbacks.of('putRunVars')).toEqual([{ kind: 'putRunVars', runVars: { change: 'CHG1' } }]);
    expect(callbacks.of('finishRun')[0]!.body).toEqual({ status: 'succeeded', outputs: { got: 42, text: 'change CHG1' } });
  });

  it('fails a step whose template names nothing, with template_error', async () => {
    const { callbacks, outcome } = run({ steps: [step('a', 'general.sleep', { seconds: '{{ inputs.missing }}' })], edges: [] });
    expect(await outcome).toBe('finished');
    expect(callbacks.of('finishRun')[0]!.body).toMatchObject({ status: 'failed', error: { code: 'template_error', step_id: 'a' } });
  });

  it('on cancel aborts the sleeping step, ends its step run cancelled and leaves the run alone', async () => {
    const control = new RunControl();
    const { callbacks, outcome } = run(
      { steps: [step('nap', 'general.sleep', { seconds: 3600 }), step('after')], edges: [{ from: 'nap', to: 'after' }] },
      { control },
    );
    callbacks.onStepRun = () => setTimeout(() => control.stop('cancel'), 20);
    expect(await outcome).toBe('cancelled');
    expect(callbacks.of('patchStepRun').map((c) => c.body)).toEqual([{ status: 'cancelled' }]);
    expect(callbacks.of('finishRun')).toEqual([]);
    expect(callbacks.of('createStepRun')).toHaveLength(1);
  });

  it('on pause finishes the current step and starts no next one until resumed', async () => {
    const control = new RunControl();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const handlers = new Map<string, StepHandlerRun>([
      ['general.noop', async ({ step: s }) => (s.id === 'a' ? (control.setPaused(true), await gate) : undefined, { outputs: {} })],
    ]);
    const { callbacks, outcome } = run({ steps: [step('a'), step('b')], edges: [{ from: 'a', to: 'b' }] }, { control, handlers });
    release();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(callbacks.of('createStepRun').map((c) => c.body.step_id)).toEqual(['a']);
    expect(callbacks.of('patchStepRun').map((c) => c.body.status)).toEqual(['succeeded']);
    control.setPaused(false);
    expect(await outcome).toBe('finished');
    expect(callbacks.of('createStepRun').map((c) => c.body.step_id)).toEqual(['a', 'b']);
  });

  it('hands back (released) a run the worker stops before it started a step; a lost run says nothing more', async () => {
    const stopped = new RunControl(true);
    const first = run({ steps: [step('a')], edges: [] }, { control: stopped });
    stopped.stop('shutdown');
    expect(await first.outcome).toBe('released');
    expect(first.callbacks.calls).toEqual([]);

    const lost = new RunControl();
    const second = run({ steps: [step('nap', 'general.sleep', { seconds: 3600 })], edges: [] }, { control: lost });
    second.callbacks.onStepRun = () => setTimeout(() => lost.stop('lost'), 20);
    expect(await second.outcome).toBe('lost');
    expect(second.callbacks.of('patchStepRun')).toEqual([]);
  });

  it('flow.run starts the child with the mapped params and targets, then mirrors its outputs', async () => {
    const handlersRun = run(
      {
        steps: [
          step('child', 'flow.run', {
            flow_name: 'other',
            poll_interval_seconds: 1,
            field_mappings: {
              a: { mode: 'literal', value: '{{ kept }}' },
              b: { mode: 'template', value: '{{ inputs.x }}' },
              c: { mode: 'default' },
            },
            target_mappings: { routers: { mode: 'parent_role', parent_role_id: 'edge' } },
          }),
        ],
        edges: [],
      },
      { params: { x: 7 } },
    );
    const { callbacks, outcome } = handlersRun;
    callbacks.onStepRun = () =>
      setTimeout(() => {
        const [start] = callbacks.of('startChildRun');
        callbacks.children.set(start!.id, { run_id: start!.id, status: 'succeeded', outputs: { result: 'ok' }, error: null });
      }, 10);
    expect(await outcome).toBe('finished');
    const [start] = callbacks.of('startChildRun');
    expect(start!.body).toMatchObject({
      parent_run_id: '00000000-0000-4000-8000-000000000001',
      parent_step_id: 'child',
      flow_name: 'other',
      params: { a: '{{ kept }}', b: 7 },
      targets: { routers: [] },
    });
    expect(callbacks.of('finishRun')[0]!.body).toEqual({ status: 'succeeded', outputs: { result: 'ok' } });
  });

  it('flow.run fails the step when the child fails, and cancels the child when the parent is cancelled', async () => {
    const failing = run({ steps: [step('child', 'flow.run', { flow_name: 'other', poll_interval_seconds: 1 })], edges: [] });
    failing.callbacks.onStepRun = () =>
      setTimeout(() => {
        const [start] = failing.callbacks.of('startChildRun');
        failing.callbacks.children.set(start!.id, { run_id: start!.id, status: 'failed', outputs: {}, error: { code: 'x', message: 'y' } });
      }, 10);
    expect(await failing.outcome).toBe('finished');
    expect(failing.callbacks.of('finishRun')[0]!.body).toMatchObject({
      status: 'failed',
      error: { code: 'child_run_failed', step_id: 'child' },
    });

    const control = new RunControl();
    const cancelled = run({ steps: [step('child', 'flow.run', { flow_name: 'other', poll_interval_seconds: 1 })], edges: [] }, { control });
    cancelled.callbacks.onStepRun = () => setTimeout(() => control.stop('cancel'), 30);
    expect(await cancelled.outcome).toBe('cancelled');
    expect(cancelled.callbacks.of('cancelChildRun')).toHaveLength(1);
    expect(cancelled.callbacks.of('patchStepRun').map((c) => c.body)).toEqual([{ status: 'cancelled' }]);
  });
});

describe('executeRun with approval gates', () => {
  const gated = (message?: string) => ({
    steps: [
      step('prepare', 'general.noop', { outputs: { change: 'CHG7' } }),
      { ...step('gate'), approval: { required_approvals: 2, ...(message === undefined ? {} : { message }) } },
      step('apply', 'general.noop', { outputs: { applied: '{{ steps.prepare.outputs.change }}' } }),
    ],
    edges: [
      { from: 'prepare', to: 'gate' },
      { from: 'gate', to: 'apply' },
    ],
  });

  it('asks for approval at a gate not yet approved, with its message rendered, after the events so far; no step run for it', async () => {
    const handlers = new Map<string, StepHandlerRun>([
      [
        'general.noop',
        async ({ step: s, emit, config }) => (
          emit('log', { message: `at ${s.id}` }),
          { outputs: (config.outputs ?? {}) as Record<string, unknown> }
        ),
      ],
    ]);
    const { callbacks, outcome } = run(gated('Apply {{ steps.prepare.outputs.change }} for {{ inputs.who }} ({{ run.attempt }})'), {
      handlers,
      params: { who: 'ops' },
    });
    expect(await outcome).toBe('awaiting_approval');
    expect(callbacks.of('createStepRun').map((c) => c.body.step_id)).toEqual(['prepare']);
    expect(callbacks.of('requestApproval').map((c) => c.body)).toEqual([{ step_id: 'gate', message: 'Apply CHG7 for ops (1)' }]);
    expect(callbacks.of('finishRun')).toEqual([]);
    // Every event made before the gate was sent before the approval was asked for.
    const kinds = callbacks.calls.map((c) => c.kind);
    expect(kinds.lastIndexOf('postEvents')).toBeLessThan(kinds.indexOf('requestApproval'));
    expect(callbacks.events().map((e) => e.data)).toEqual([{ message: 'at prepare' }]);
    expect(kinds.at(-1)).toBe('requestApproval');
  });

  it('sends no message when the gate has none', async () => {
    const { callbacks, outcome } = run(gated());
    expect(await outcome).toBe('awaiting_approval');
    expect(callbacks.of('requestApproval').map((c) => c.body)).toEqual([{ step_id: 'gate' }]);
  });

  it('resumed: completed steps are not run again and feed templates; the approved gate runs its handler', async () => {
    const order: string[] = [];
    const handlers = new Map<string, StepHandlerRun>([
      ['general.noop', async ({ step: s, config }) => (order.push(s.id), { outputs: (config.outputs ?? {}) as Record<string, unknown> })],
    ]);
    const { callbacks, outcome } = run(gated('never rendered {{ inputs.missing }}'), {
      handlers,
      assignment: { attempt: 2, completed_steps: { prepare: { outputs: { change: 'CHG-EARLIER' } } }, approved_steps: ['gate'] },
    });
    expect(await outcome).toBe('finished');
    expect(order).toEqual(['gate', 'apply']);
    expect(callbacks.of('createStepRun').map((c) => c.body.step_id)).toEqual(['gate', 'apply']);
    expect(callbacks.of('requestApproval')).toEqual([]);
    expect(callbacks.of('finishRun').map((c) => c.body)).toEqual([{ status: 'succeeded', outputs: { applied: 'CHG-EARLIER' } }]);
  });

  it('resumed with every step completed earlier: runs none and ends the run with the last step outputs', async () => {
    const { callbacks, outcome } = run(gated(), {
      assignment: {
        attempt: 2,
        completed_steps: { prepare: { outputs: {} }, gate: { outputs: {} }, apply: { outputs: { applied: 'CHG7' } } },
        approved_steps: ['gate'],
      },
    });
    expect(await outcome).toBe('finished');
    expect(callbacks.of('createStepRun')).toEqual([]);
    expect(callbacks.of('finishRun').map((c) => c.body)).toEqual([{ status: 'succeeded', outputs: { applied: 'CHG7' } }]);
  });

  it('a second gate after an approved one asks again', async () => {
    const definition = {
      steps: [{ ...step('first'), approval: {} }, step('between'), { ...step('second'), approval: { message: 'again' } }],
      edges: [
        { from: 'first', to: 'between' },
        { from: 'between', to: 'second' },
      ],
    };
    const { callbacks, outcome } = run(definition, { assignment: { attempt: 2, approved_steps: ['first'] } });
    expect(await outcome).toBe('awaiting_approval');
    expect(callbacks.of('createStepRun').map((c) => c.body.step_id)).toEqual(['first', 'between']);
    expect(callbacks.of('requestApproval').map((c) => c.body)).toEqual([{ step_id: 'second', message: 'again' }]);
  });

  it('a run paused before its gate was asked for holds until resumed and asks again; a cancelled one stops', async () => {
    const refusal = (status: string) =>
      new DaemonAnswerError('POST', '/internal/runs/x/approvals', 409, 'invalid_run_state', { code: 'invalid_run_state', status });
    const control = new RunControl();
    const paused = run(gated(), { control });
    const ask = paused.callbacks.requestApproval.bind(paused.callbacks);
    let refused = false;
    let told!: () => void;
    const toldPaused = new Promise<void>((resolve) => (told = resolve));
    paused.callbacks.requestApproval = async (body: ApprovalRequest) => {
      if (refused) return ask(body);
      refused = true;
      setImmediate(told);
      throw refusal('paused');
    };
    await toldPaused;
    expect(control.paused).toBe(true);
    expect(paused.callbacks.of('requestApproval')).toEqual([]);
    control.setPaused(false);
    expect(await paused.outcome).toBe('awaiting_approval');
    expect(paused.callbacks.of('requestApproval').map((c) => c.body.step_id)).toEqual(['gate']);

    const cancelled = run(gated());
    cancelled.callbacks.requestApproval = async () => Promise.reject(refusal('cancelled'));
    expect(await cancelled.outcome).toBe('cancelled');
    expect(cancelled.callbacks.of('finishRun')).toEqual([]);
  });

  it('fails the run with template_error when the message names nothing, asking nothing', async () => {
    const { callbacks, outcome } = run(gated('for {{ inputs.nobody }}'));
    expect(await outcome).toBe('finished');
    expect(callbacks.of('requestApproval')).toEqual([]);
    expect(callbacks.of('finishRun')[0]!.body).toMatchObject({
      status: 'failed',
      error: { code: 'template_error', step_id: 'gate', path: 'approval.message' },
    });
  });

  it('refuses an unavailable handler after the gate before asking for approval', async () => {
    const definition = {
      steps: [{ ...step('gate'), approval: {} }, step('deploy', 'container.run', { image: 'alpine:3' })],
      edges: [{ from: 'gate', to: 'deploy' }],
    };
    const { callbacks, outcome } = run(definition);
    expect(await outcome).toBe('finished');
    expect(callbacks.of('requestApproval')).toEqual([]);
    expect(callbacks.of('finishRun')[0]!.body).toMatchObject({
      status: 'failed',
      error: { code: 'handler_unavailable', step_id: 'deploy' },
    });
  });
});

describe('renderConfig', () => {
  const context = { inputs: { n: 5, name: 'r1' }, steps: { a: { outputs: { list: [1, 2] } } } };
  it('keeps the type of a whole-string template and writes text into a longer string', () => {
    expect(renderConfig({ seconds: '{{ inputs.n }}', text: 'host {{ inputs.name }} {{ steps.a.outputs.list }}', raw: 3 }, context)).toEqual(
      {
        seconds: 5,
        text: 'host r1 [1,2]',
        raw: 3,
      },
    );
  });
  it('refuses an expression it does not render', () => {
    expect(() => renderConfig({ key: "{{ secret('x') }}" }, context)).toThrow(TemplateError);
    expect(() => renderConfig({ key: '{{ inputs.nope }}' }, context)).toThrow(TemplateError);
  });
});
