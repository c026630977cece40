import { CliError } from '../../errors.js';

/**
 * Filters a JSON answer through jq (jq-wasm: jq itself compiled to WebAssembly, so nothing to
 * download at install time). Loaded only when --jq is given: its module is 1.3 MB of JavaScript.
 * Strings print raw; other values compact unless stdout is a terminal (as `gh api --jq` does).
 */
export async function applyJq(body: unknown, expression: string, pretty: boolean): Promise<string> {
  const { raw } = await import('jq-wasm');
  let output: string;
  try {
    output = await raw(JSON.stringify(body), expression, pretty ? ['-r'] : ['-r', '-c']);
  } catch (err) {
    const message = (err as Error).message.replace(/^Failed to execute raw query: /, '').trim();
    // A filter that does not compile is the caller's usage; one that fails on this answer is not.
    throw new CliError(/compile error/.test(message) ? 'usage' : 'error', `--jq: ${message.split('\n')[0]}`, { cause: err });
  }
  return output === '' || output.endsWith('\n') ? output : `${output}\n`;
}
