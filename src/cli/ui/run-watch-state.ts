import type { RunEvent } from '../../shared/api/run-events.js';
import { awaitingApprovalNote, progressLine } from '../commands/runs/progress.js';

/** What the watch view shows of a run: its state, each step's, the last events, and how following goes. */
export interface WatchState {
  readonly run: { readonly id: string; readonly name: string; readonly flow: string; readonly status: string };
  /** Steps in the order they first appeared, each with its latest state. */
  readonly steps: readonly { readonly id: string; readonly handler: string; readonly status: string; readonly attempt: number }[];
  /** The last events as lines, oldest first. */
  readonly tail: readonly string[];
  /** Set while the stream reconnects. */
  readonly notice: string | null;
  /** Set while the run awaits approval: what it waits for and how to decide. */
  readonly awaiting: string | null;
  /** The run's final status once its stream ended. */
  readonly ended: string | null;
}

export type WatchUpdate =
  | { readonly kind: 'event'; readonly event: RunEvent }
  | { readonly kind: 'reconnecting'; readonly text: string }
  | { readonly kind: 'end'; readonly status: string };

export const TAIL_LINES = 10;

export function initialWatchState(run: { id: string; name: string; flow_name: string; flow_version: number; status: string }): WatchState {
  return {
    run: { id: run.id, name: run.name, flow: `${run.flow_name} v${run.flow_version}`, status: run.status },
    steps: [],
    tail: [],
    notice: null,
    awaiting: null,
    ended: null,
  };
}

const str = (value: unknown, fallback: string) => (typeof value === 'string' ? value : fallback);

/** The view's state after one update; pure, so the view and its tests see the same thing. */
export function reduceWatch(state: WatchState, update: WatchUpdate): WatchState {
  if (update.kind === 'reconnecting') return { ...state, notice: update.text };
  if (update.kind === 'end')
    return { ...state, run: { ...state.run, status: update.status }, ended: update.status, notice: null, awaiting: null };
  const { event } = update;
  const tail = [...state.tail, progressLine(event)].slice(-TAIL_LINES);
  if (event.type === 'run.status') {
    const awaiting = awaitingApprovalNote(state.run.id, event) ?? null;
    return { ...state, run: { ...state.run, status: str(event.data.to, state.run.status) }, tail, notice: null, awaiting };
  }
  if (event.type === 'step.status') {
    const id = str(event.data.step_id, event.step_id ?? '?');
    const step = { id, handler: str(event.data.handler, ''), status: str(event.data.to, '?'), attempt: event.attempt };
    const known = state.steps.some((s) => s.id === id);
    const steps = known
      ? state.steps.map((s) => (s.id === id ? { ...step, handler: step.handler || s.handler } : s))
      : [...state.steps, step];
    return { ...state, steps, tail, notice: null };
  }
  return { ...state, tail, notice: null };
}

/** A value the view subscribes to (React's useSyncExternalStore), fed by the command as the stream goes. */
export interface WatchStore {
  subscribe(listener: () => void): () => void;
  snapshot(): WatchState;
  push(update: WatchUpdate): void;
}

export function createWatchStore(initial: WatchState): WatchStore {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
    snapshot: () => state,
    push(update) {
      state = reduceWatch(state, update);
      for (const listener of listeners) listener();
    },
  };
}
