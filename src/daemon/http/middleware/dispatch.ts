import type { Problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import type { MountedRoute, ProblemResponder, Step } from '../types.js';

/**
 * Calls the route's handler; a catalogue route nobody has built yet answers 501 naming its action. That
 * answer is handed to the responder, not thrown: it is the same for every request to the route, so it is
 * made once per route, and a throw would cost more than the rest of the answer.
 */
export function dispatch(answerProblem: ProblemResponder): Step {
  const unbuilt = new WeakMap<MountedRoute, Problem>();
  return function dispatchStep(ctx) {
    const mounted = ctx.state.mounted!;
    if (mounted.binding) return settled(mounted.binding.handle(ctx));
    let problem = unbuilt.get(mounted);
    if (!problem) unbuilt.set(mounted, (problem = problems.notImplemented(mounted.route.action)));
    answerProblem(ctx, problem);
    return 'answered';
  };
}

/** A handler's result only says when it is done (a thenable is waited for, as `await` would); its value means nothing here. */
function settled(handled: unknown): Promise<void> | undefined {
  if (handled instanceof Promise) return handled as Promise<void>;
  const thenable = handled as { then?: unknown } | null | undefined;
  return typeof thenable?.then === 'function' ? Promise.resolve(handled).then(() => undefined) : undefined;
}
