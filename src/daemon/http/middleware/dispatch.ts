import type { Problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { parseInput, type ResponseCheck } from '../route-input.js';
import type { MountedRoute, ProblemResponder, Step } from '../types.js';

/**
 * Validates the request against the route's schemas and calls its handler with the parsed values; a
 * catalogue route nobody has built yet answers 501 naming its action. That answer is handed to the
 * responder, not thrown: it is the same for every request to the route, so it is made once per route, and
 * a throw would cost more than the rest of the answer.
 */
export function dispatch(answerProblem: ProblemResponder, checkResponse?: ResponseCheck): Step {
  const unbuilt = new WeakMap<MountedRoute, Problem>();
  return function dispatchStep(ctx) {
    const mounted = ctx.state.mounted!;
    const binding = mounted.binding;
    if (binding) {
      binding.preValidation?.(ctx);
      const handled = settled(binding.handle(ctx, parseInput(binding, ctx)));
      if (!checkResponse) return handled;
      return handled ? handled.then(() => checkResponse(binding, ctx)) : checkResponse(binding, ctx);
    }
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
