import { usageError } from '../errors.js';

/**
 * The process's streams as commands see them: data goes to `out`, everything else to `err`.
 * Colour only when NO_COLOR is unset and the stream is a terminal.
 */
export interface IO {
  readonly stdin: NodeJS.ReadStream;
  /** Where bytes that are not text go (a download to `-`); absent (a test's IO), process.stdout. */
  readonly stdout?: NodeJS.WritableStream;
  out(text: string): void;
  err(text: string): void;
  readonly stdinIsTTY: boolean;
  readonly stdoutIsTTY: boolean;
  readonly stderrIsTTY: boolean;
  readonly colorOut: boolean;
  readonly colorErr: boolean;
}

export function processIO(env: NodeJS.ProcessEnv = process.env): IO {
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== '';
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    out: (text) => void process.stdout.write(text),
    err: (text) => void process.stderr.write(text),
    stdinIsTTY: process.stdin.isTTY === true,
    stdoutIsTTY: process.stdout.isTTY === true,
    stderrIsTTY: process.stderr.isTTY === true,
    colorOut: !noColor && process.stdout.isTTY === true,
    colorErr: !noColor && process.stderr.isTTY === true,
  };
}

const paint = (enabled: boolean, open: number, close: number) => (text: string) =>
  enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;

export function styles(enabled: boolean) {
  return {
    bold: paint(enabled, 1, 22),
    dim: paint(enabled, 2, 22),
    red: paint(enabled, 31, 39),
    green: paint(enabled, 32, 39),
    yellow: paint(enabled, 33, 39),
  };
}

/** Prints JSON data on stdout, two-space indented, newline-terminated. */
export function printJson(io: IO, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

/** Reads all of stdin as text. */
export async function readStdin(io: IO): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Asks one question on the terminal. Without a terminal it refuses and names the flag that answers
 * the question instead (a prompt never blocks a script).
 */
export async function prompt(io: IO, question: string, flag: string): Promise<string> {
  if (!io.stdinIsTTY) throw usageError(`cannot prompt for ${question.replace(/[:?]\s*$/, '')} without a terminal`, `pass ${flag}`);
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: io.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}
