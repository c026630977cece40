import { spawn } from 'node:child_process';
import { expect } from 'vitest';
import { join } from 'node:path';
import { REPO_ROOT } from './spawn.js';

/** The built CLI, as users run it (`npm test` builds first). */
export const SVC_BIN = join(REPO_ROOT, 'bin', 'svc');

export interface SvcRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `svc` with its own config directory (XDG_CONFIG_HOME) and nothing else from the caller's environment. */
export function runSvc(args: string[], options: { configHome: string; env?: Record<string, string>; stdin?: string }): Promise<SvcRun> {
  const child = spawn(process.execPath, [SVC_BIN, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: options.configHome, XDG_CONFIG_HOME: options.configHome, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** The run, once it has exited 0 (its stderr is the failure's message otherwise). */
export async function ok(run: Promise<SvcRun>): Promise<SvcRun> {
  const result = await run;
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** A successful run's stdout, parsed as JSON. */
export const json = async <T = Record<string, any>>(run: Promise<SvcRun>): Promise<T> => JSON.parse((await ok(run)).stdout) as T;
