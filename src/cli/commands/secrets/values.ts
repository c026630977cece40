import { open } from 'node:fs/promises';
import { SECRET_KEY_PATTERN, SECRET_VALUE_MAX_BYTES } from '../../../shared/secrets/names.js';
import { usageError } from '../../errors.js';
import type { IO } from '../../runtime/io.js';

/** Where one key's value comes from: never the command line, which shell history and `ps` keep. */
export type ValueSource =
  | { readonly key: string; readonly from: 'env'; readonly variable: string }
  | { readonly key: string; readonly from: 'file'; readonly path: string }
  | { readonly key: string; readonly from: 'stdin' };

/** A key as the backend takes it; a usage error (exit 2) before anything is sent otherwise. */
export function secretKey(key: string, flagName: string): string {
  if (!SECRET_KEY_PATTERN.test(key))
    throw usageError(`${flagName}: "${key}" is not a key name`, 'a key is a letter or _, then letters, digits, _ . or -, at most 128');
  return key;
}

/** `KEY=REST` of `--from-env` / `--from-file`, split at the first `=`. */
export function keyAndRest(text: string, flagName: string, rest: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0 || at === text.length - 1) throw usageError(`${flagName} takes KEY=${rest}, not "${text}"`);
  return [secretKey(text.slice(0, at), flagName), text.slice(at + 1)];
}

/** The sources of `--from-env`, `--from-file` and `--from-stdin`, each key named once. */
export function valueSources(env: readonly string[], files: readonly string[], stdinKey: string | undefined): ValueSource[] {
  const sources: ValueSource[] = [
    ...env.map((text): ValueSource => {
      const [key, variable] = keyAndRest(text, '--from-env', 'VARIABLE');
      return { key, from: 'env', variable };
    }),
    ...files.map((text): ValueSource => {
      const [key, path] = keyAndRest(text, '--from-file', 'PATH');
      return { key, from: 'file', path };
    }),
    ...(stdinKey === undefined ? [] : [{ key: secretKey(stdinKey, '--from-stdin'), from: 'stdin' } as const]),
  ];
  const seen = new Set<string>();
  for (const { key } of sources) {
    if (seen.has(key)) throw usageError(`key "${key}" is given more than once`);
    seen.add(key);
  }
  return sources;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function text(bytes: Uint8Array, what: string): string {
  if (bytes.length > SECRET_VALUE_MAX_BYTES)
    throw usageError(`${what} is larger than a secret value may be (${SECRET_VALUE_MAX_BYTES} bytes)`);
  try {
    return utf8.decode(bytes);
  } catch {
    throw usageError(`${what} is not UTF-8 text`, 'a secret value is a string; base64-encode binary content first');
  }
}

const unreadable = (path: string, error: unknown) =>
  usageError(`--from-file: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);

/** A file's content as it is, read only when it is small enough to be a value. */
async function fileValue(path: string): Promise<string> {
  // One byte past the limit tells a file too large without reading it whole.
  const buffer = Buffer.alloc(SECRET_VALUE_MAX_BYTES + 1);
  let length = 0;
  const handle = await open(path, 'r').catch((error: unknown) => {
    throw unreadable(path, error);
  });
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length);
      if (bytesRead === 0 || (length += bytesRead) === buffer.length) break;
    }
  } catch (error) {
    throw unreadable(path, error);
  } finally {
    await handle.close();
  }
  return text(buffer.subarray(0, length), path);
}

/** stdin's bytes, up to one past the largest value (the rest is never read). */
async function stdinBytes(io: IO): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of io.stdin) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
    if ((length += chunks.at(-1)!.length) > SECRET_VALUE_MAX_BYTES + 2) break;
  }
  return Buffer.concat(chunks);
}

function withoutFinalNewline(bytes: Buffer): Buffer {
  const cut = bytes.at(-1) === 0x0a ? (bytes.at(-2) === 0x0d ? 2 : 1) : 0;
  return bytes.subarray(0, bytes.length - cut);
}

/**
 * The values of `sources`, read: an environment variable must be set (to anything, the empty string
 * too), a file is taken as it is, and stdin loses one final newline, the one `echo` adds, so
 * `echo "$PASSWORD" | svc secrets set …` stores the password and not a newline after it.
 */
export async function readValues(sources: readonly ValueSource[], env: NodeJS.ProcessEnv, io: IO): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const source of sources) {
    if (source.from === 'env') {
      const value = env[source.variable];
      if (value === undefined) throw usageError(`--from-env: ${source.variable} is not set`);
      values[source.key] = text(Buffer.from(value, 'utf8'), `$${source.variable}`);
    } else if (source.from === 'file') {
      values[source.key] = await fileValue(source.path);
    } else {
      if (io.stdinIsTTY) io.err(`Type the value of ${source.key}, then Ctrl-D:\n`);
      values[source.key] = text(withoutFinalNewline(await stdinBytes(io)), 'stdin');
    }
  }
  return values;
}
