import type { Middleware } from 'koa';
import type { AppContext, AppState, Finisher, ProblemResponder, Step, StepOutcome } from './types.js';

export interface RequestPathParts {
  /** In order; each may answer the request (`'answered'`) or refuse it (throw or reject). */
  readonly steps: readonly Step[];
  /** Answers whatever a step threw or rejected with. */
  readonly answerProblem: ProblemResponder;
  /** After the answer, in order, whatever it was. */
  readonly finishers: readonly Finisher[];
}

/**
 * The request path as one Koa middleware. Koa would make every step an async frame and a `next()`
 * promise, and carry a refusal back up through all of them; here each step is a plain call, a promise is
 * waited for only when a step returns one, and a refusal goes straight to the responder.
 */
export function requestPath({ steps, answerProblem, finishers }: RequestPathParts): Middleware<AppState> {
  function runFrom(ctx: AppContext, first: number): Promise<unknown> | undefined {
    for (let index = first; index < steps.length; index++) {
      const outcome: StepOutcome | Promise<StepOutcome> = steps[index]!(ctx);
      if (outcome === undefined) continue;
      if (outcome === 'answered') return undefined;
      return outcome.then((settled) => (settled === 'answered' ? undefined : runFrom(ctx, index + 1)));
    }
    return undefined;
  }

  function finish(ctx: AppContext, started: bigint): void {
    for (const finisher of finishers) finisher(ctx, started);
  }

  return function requestPathMiddleware(ctx) {
    const started = process.hrtime.bigint();
    let pending: Promise<unknown> | undefined;
    try {
      pending = runFrom(ctx, 0);
    } catch (error) {
      answerProblem(ctx, error);
    }
    if (pending === undefined) return finish(ctx, started);
    return pending.then(
      () => finish(ctx, started),
      (error: unknown) => {
        answerProblem(ctx, error);
        finish(ctx, started);
      },
    );
  };
}
