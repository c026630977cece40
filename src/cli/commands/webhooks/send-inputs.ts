import { readFile } from 'node:fs/promises';
import { usageError } from '../../errors.js';
import type { IO } from '../../runtime/io.js';

/** Where the payload comes from: `--data`, `--file PATH`, or `--file -` (standard input). */
export type PayloadSource =
  { readonly kind: 'data'; readonly text: string } | { readonly kind: 'file'; readonly path: string } | { readonly kind: 'stdin' };

/** Where a secret comes from. Never a flag value: that would land in shell history and `ps`. */
export type SecretSource = { readonly kind: 'env'; readonly variable: string } | { readonly kind: 'file'; readonly path: string };

async function readAll(stream: NodeJS.ReadableStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks);
}

/**
 * The payload's bytes, exactly as they will be signed and sent (a file's trailing newline included:
 * it is valid JSON whitespace and the signature covers it). Checked to be UTF-8 JSON first, so a typo
 * fails here (exit 2) instead of as a 422 from the server.
 */
export async function readPayload(source: PayloadSource, io: IO): Promise<Buffer> {
  let bytes: Buffer;
  if (source.kind === 'data') bytes = Buffer.from(source.text, 'utf8');
  else if (source.kind === 'stdin') bytes = await readAll(io.stdin);
  else {
    try {
      bytes = await readFile(source.path);
    } catch (err) {
      throw usageError(`cannot read --file ${source.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw usageError('the payload is not UTF-8 text');
  }
  try {
    JSON.parse(text);
  } catch (err) {
    throw usageError(`the payload is not valid JSON: ${(err as Error).message}`);
  }
  return bytes;
}

/** A secret's value; a file's trailing line breaks are dropped, as `$(cat file)` would. */
export async function readSecret(source: SecretSource, env: NodeJS.ProcessEnv, flag: string): Promise<string> {
  let value: string | undefined;
  if (source.kind === 'env') value = env[source.variable];
  else {
    try {
      value = (await readFile(source.path, 'utf8')).replace(/[\r\n]+$/, '');
    } catch (err) {
      throw usageError(`cannot read ${flag} ${source.path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  }
  if (value === undefined || value === '') {
    throw usageError(
      source.kind === 'env' ? `${flag} ${source.variable}: the variable is unset or empty` : `${flag} ${source.path}: the file is empty`,
    );
  }
  return value;
}
