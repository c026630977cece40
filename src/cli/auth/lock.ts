import { open, readFile, rm, stat } from 'node:fs/promises';

export interface LockOptions {
  /** Give up waiting after this long. Default 15 s. */
  readonly timeoutMs?: number;
  /** A lock older than this is taken to be left behind by a crashed process. Default 30 s. */
  readonly staleMs?: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function isStale(path: string, staleMs: number): Promise<boolean> {
  try {
    const [info, text] = await Promise.all([stat(path), readFile(path, 'utf8')]);
    const pid = Number.parseInt(text.split('\n')[0] ?? '', 10);
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) return true;
    return Date.now() - info.mtimeMs > staleMs;
  } catch {
    // Vanished (released) or unreadable mid-write: try again.
    return false;
  }
}

/**
 * Runs `fn` holding a cross-process lock: a lock file created with O_EXCL holding our pid. A lock
 * whose process is gone, or older than `staleMs`, is removed and taken over.
 */
export async function withFileLock<T>(path: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 15_000);
  const staleMs = options.staleMs ?? 30_000;
  for (;;) {
    try {
      const handle = await open(path, 'wx', 0o600);
      try {
        await handle.writeFile(`${process.pid}\n${new Date().toISOString()}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      if (await isStale(path, staleMs)) {
        await rm(path, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the lock ${path}`);
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(path, { force: true });
  }
}
