import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { attemptSignal, elapsedSince, failed, passed, type CheckOutcome } from './outcome.js';
import { unbracketed } from './tcp.js';

/**
 * The system `ping` on PATH, or undefined. The worker opens no raw socket itself (that needs privileges it
 * should not hold); where the system gives unprivileged users a `ping`, an ICMP echo is honest to run.
 */
export function findPing(path = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, 'ping');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** One echo request by `ping -c 1 -W <s> -n <host>`: reachable on exit 0, the round trip read from its output when it gives one. */
export function icmpPing(ping: string, host: string, timeoutMs: number, runSignal: AbortSignal): Promise<CheckOutcome> {
  const signal = attemptSignal(runSignal, timeoutMs + 1000);
  const seconds = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    execFile(ping, ['-c', '1', '-W', seconds, '-n', unbracketed(host)], { signal, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (runSignal.aborted) return reject(runSignal.reason);
      if (!error) {
        const rtt = /time[=<]\s*([\d.]+)\s*ms/.exec(stdout);
        return resolve(passed(rtt ? Number(rtt[1]) : elapsedSince(started)));
      }
      const exitCode = (error as { code?: unknown }).code;
      if (exitCode === 1) return resolve(failed('no_echo_reply', `no echo reply within ${seconds} s`));
      if (signal.aborted) return resolve(failed('timeout', `ping gave no answer within ${timeoutMs} ms`));
      return resolve(failed('ping_failed', (stderr || error.message).trim().slice(0, 500)));
    });
  });
}
