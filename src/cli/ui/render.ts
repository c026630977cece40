import type { ActionRow, PermsApi } from '../commands/perms/api.js';
import { OVERRIDABLE_POLICIES } from './policies.js';
import { createWatchStore, initialWatchState, type WatchUpdate } from './run-watch-state.js';

/**
 * The one door to Ink: commands call these functions, which import ink, react and the (private)
 * components only when called, so no other path of the CLI loads them.
 */
export async function renderPermsMatrix(props: { actions: ActionRow[]; api: PermsApi }): Promise<void> {
  const [{ render }, { createElement }, { PermsMatrix }] = await Promise.all([import('ink'), import('react'), import('./perms-matrix.js')]);
  const app = render(createElement(PermsMatrix, { initial: props.actions, api: props.api, policies: OVERRIDABLE_POLICIES }));
  await app.waitUntilExit();
}

/** What the watch view is given: the run as first read, and how to follow it (feeding the store until the run ends). */
export interface RunWatchProps {
  readonly run: { id: string; name: string; flow_name: string; flow_version: number; status: string };
  /** Whether keys are read (stdin a terminal): `q` quits, Ctrl-C interrupts. */
  readonly keys: boolean;
  /** Follows the run, pushing each update, until it ends (its status) or `stop` aborts (undefined). */
  follow(push: (update: WatchUpdate) => void, stop: AbortSignal): Promise<string | undefined>;
}

/**
 * The live view of a run until it ends or the user stops watching. Answers the run's final status, or
 * how watching stopped (`quit`: q; `interrupt`: Ctrl-C read as a key).
 */
export async function renderRunWatch(props: RunWatchProps): Promise<{ ending: string | undefined; stopped: 'quit' | 'interrupt' | null }> {
  const [{ render }, { createElement }, { RunWatch }] = await Promise.all([import('ink'), import('react'), import('./run-watch.js')]);
  const store = createWatchStore(initialWatchState(props.run));
  const stop = new AbortController();
  let stopped: 'quit' | 'interrupt' | null = null;
  const onQuit = (how: 'quit' | 'interrupt') => {
    stopped ??= how;
    stop.abort();
  };
  const app = render(createElement(RunWatch, { store, keys: props.keys, onQuit }), { exitOnCtrlC: false });
  try {
    const ending = await props.follow((update) => store.push(update), stop.signal);
    if (ending !== undefined) {
      store.push({ kind: 'end', status: ending });
      // React commits the update on its own turn; unmounting first would leave the last frame without the end.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { ending, stopped };
  } finally {
    app.unmount();
    await app.waitUntilExit();
  }
}
