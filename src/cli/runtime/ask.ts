import { Writable } from 'node:stream';
import type { IO } from './io.js';

/**
 * Asks a question whose default answer is yes (`[Y/n]`) on stderr and reads the answer from stdin:
 * an empty answer, `y` or `yes` is a yes; anything else is a no. The caller decides first that there
 * is a terminal to ask (see auth/relogin.ts); this only asks.
 *
 * Readline runs in terminal mode, holding stdin in raw mode while it asks, so Ctrl-C arrives as a key
 * and answers no; outside raw mode it would be SIGINT, which ends svc as interrupted (130). End of
 * input (Ctrl-D) and the command's abort signal answer no as well.
 */
export async function askDefaultYes(io: Pick<IO, 'stdin' | 'err'>, question: string, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  const { createInterface } = await import('node:readline');
  const output = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      io.err(chunk.toString());
      done();
    },
  });
  const rl = createInterface({ input: io.stdin, output, terminal: true });
  return new Promise<boolean>((resolve) => {
    let settled = false;
    const finish = (yes: boolean) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      rl.close();
      resolve(yes);
    };
    const onAbort = () => finish(false);
    signal.addEventListener('abort', onAbort, { once: true });
    rl.on('SIGINT', () => {
      io.err('\n');
      finish(false);
    });
    rl.on('close', () => finish(false));
    rl.question(question, (answer) => finish(/^(y|yes)?$/i.test(answer.trim())));
  });
}
