import { abortableDelay } from '../retry.js';
import { StepFailure, type StepContext, type StepResult } from './types.js';

/**
 * `general.noop` does nothing to the world. Its configuration is the platform's to write (the catalogue
 * gives it none: open config); the worker reads two members of it and ignores the rest: `outputs` (an
 * object) becomes the step's outputs, and `run_vars` (an object) is merged into the run's variables. So a
 * flow can pass a value on, or mark a point of the run, without a container (docs/decisions.md).
 */
export async function runNoop({ config, setRunVars }: StepContext): Promise<StepResult> {
  const outputs = objectMember(config, 'outputs');
  const runVars = objectMember(config, 'run_vars');
  if (Object.keys(runVars).length > 0) await setRunVars(runVars);
  return { outputs };
}

/** `general.sleep`: waits `seconds` (an integer, at least 1), ended at once by a cancel or a stop. */
export async function runSleep({ config, signal, emit }: StepContext): Promise<StepResult> {
  const seconds = config.seconds ?? 30;
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1) {
    throw new StepFailure('invalid_config', 'seconds must be an integer of at least 1', { field: 'seconds' });
  }
  const message = typeof config.message === 'string' && config.message !== '' ? config.message : `slept ${seconds} s`;
  emit('log', { level: 'info', message: `sleeping ${seconds} s` });
  await abortableDelay(seconds * 1000, signal);
  return { outputs: { seconds }, summary: message };
}

function objectMember(config: Readonly<Record<string, unknown>>, key: string): Record<string, unknown> {
  const value = config[key];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value))
    throw new StepFailure('invalid_config', `${key} must be an object`, { field: key });
  return value as Record<string, unknown>;
}
