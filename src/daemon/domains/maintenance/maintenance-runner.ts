import { Problem } from '../../../shared/api/problem.js';
import type { MaintenanceJobRun, MaintenanceTickAnswer } from '../../../shared/api/maintenance.js';
import { isDatabaseUnavailable } from '../../db/database-errors.js';
import type { Logger } from '../../logging/logger.js';
import { summaryOf, type MaintenanceJob, type PassTrigger } from './job.js';
import type { JobRunsRepo } from './job-runs-repo.js';

/** The pass's clock: what each job is handed as `now` and its run is stamped with. Tests inject one. */
export type Clock = () => Date;

/** A recorded error message is for reading, not for storing a stack or a whole statement. */
const MAX_MESSAGE = 2000;

/** Why a job failed, as a stable code and its message. */
function failureOf(error: unknown): { code: string; message: string } {
  const message = (error instanceof Error ? error.message : String(error)).slice(0, MAX_MESSAGE);
  if (error instanceof Problem) return { code: error.code, message };
  if (isDatabaseUnavailable(error)) return { code: 'database_unavailable', message };
  return { code: 'internal_error', message };
}

/**
 * Runs every registered job once, in registration order, and records each run: a job that throws is
 * recorded `failed` and the next job runs all the same. A run that cannot be recorded (the database
 * lost) does not stop the others either; the pass then throws that error at its end (the tick answers 503).
 */
export class MaintenanceRunner {
  constructor(
    private readonly jobs: readonly MaintenanceJob[],
    private readonly runs: JobRunsRepo,
    private readonly clock: Clock,
    readonly instance: string,
    private readonly log: Logger,
  ) {
    const names = new Set<string>();
    for (const job of jobs) {
      // Two jobs under one name would share one recorded history: a wiring mistake, refused at start-up.
      if (names.has(job.name)) throw new Error(`maintenance job "${job.name}" is registered twice`);
      names.add(job.name);
    }
  }

  /** The registered jobs' names, in the pass's order. */
  get jobNames(): string[] {
    return this.jobs.map((job) => job.name);
  }

  async runAll(trigger: PassTrigger): Promise<MaintenanceTickAnswer> {
    const done: MaintenanceJobRun[] = [];
    let unrecorded: unknown;
    for (const job of this.jobs) {
      const { run, recorded } = await this.runOne(job, trigger);
      done.push(run);
      unrecorded ??= recorded;
    }
    if (unrecorded !== undefined) throw unrecorded;
    return { instance: this.instance, jobs: done };
  }

  /** Runs one job and records it; answers the run and, when recording failed, why. */
  private async runOne(job: MaintenanceJob, trigger: PassTrigger): Promise<{ run: MaintenanceJobRun; recorded?: unknown }> {
    const startedAt = this.clock();
    const began = performance.now();
    let summary: Record<string, unknown> | null = null;
    let error: { code: string; message: string } | null = null;
    try {
      summary = summaryOf(await job.run(startedAt));
    } catch (thrown) {
      error = failureOf(thrown);
      this.log.warn({ err: thrown, job: job.name, trigger }, 'a maintenance job failed; the others run on');
    }
    const durationMs = Math.round(performance.now() - began);
    const run: MaintenanceJobRun = {
      name: job.name,
      outcome: error ? 'failed' : 'ok',
      started_at: startedAt.toISOString(),
      duration_ms: durationMs,
      summary,
      error,
    };
    try {
      await this.runs.record({
        job: job.name,
        trigger,
        instance: this.instance,
        startedAt,
        // On the pass's clock, so an injected clock gives consistent rows.
        finishedAt: new Date(startedAt.getTime() + durationMs),
        durationMs,
        outcome: run.outcome,
        summary,
        error,
      });
      return { run };
    } catch (recordError) {
      this.log.warn({ err: recordError, job: job.name }, 'could not record a maintenance job run');
      return { run, recorded: recordError };
    }
  }
}
