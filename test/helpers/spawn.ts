import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Runs a TypeScript entry point of the project in a child process, as `bin/` would after a build. */
export function spawnTs(entry: string, args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', entry, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export interface Finished {
  readonly code: number | null;
  /** The signal that ended it, when one did (then `code` is null). */
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function collect(child: ChildProcess): { output: () => { stdout: string; stderr: string }; finished: Promise<Finished> } {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const finished = new Promise<Finished>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { output: () => ({ stdout, stderr }), finished };
}

/** Resolves with the URL the daemon logs once it listens. */
export async function waitForListening(child: ChildProcess, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => reject(new Error(`daemon did not listen within ${timeoutMs} ms:\n${buffered}${stderr}`)), timeoutMs);
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"/.exec(buffered);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code} before listening:\n${buffered}${stderr}`));
    });
  });
}
