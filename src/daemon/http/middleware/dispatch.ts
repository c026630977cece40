import { problems } from '../problem.js';
import type { Step } from '../types.js';

/** Calls the route's handler; a catalogue route nobody has built yet answers 501 naming its action. */
export function dispatch(): Step {
  return async function dispatchStep(ctx) {
    const { route, binding } = ctx.state.mounted!;
    if (!binding) throw problems.notImplemented(route.action);
    await binding.handle(ctx);
  };
}
