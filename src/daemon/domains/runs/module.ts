import type { Services } from '../../daemon.js';
import type { DomainRoutes } from '../../http/types.js';
import type { RunAdmission } from './run-admission.js';

export interface RunsModule {
  readonly routes: readonly DomainRoutes[];
  readonly admission: RunAdmission;
}

/** Runs and run admission. Placeholder until the runs change lands. */
export function runsModule(_services: Services): RunsModule {
  return {
    routes: [],
    admission: {
      admit: () => {
        throw new Error('runs are not built yet');
      },
    },
  };
}
