import type { Command } from 'commander';
import type { ApiClient } from '../http/client.js';
import { confirmDestructive } from '../runtime/confirm.js';
import type { Context } from '../runtime/context.js';
import { printJson } from '../runtime/io.js';
import { enc, flag, jsonFlag, yesFlag } from './shared.js';
import type { Verb } from './verb.js';

/** A kind of row the API deletes (`DELETE <collection>/{id}`), soft (restorable) unless `restore` is false. */
export interface Deleted {
  /** As the prompt and the message name it: `site`, `webhook endpoint`. */
  readonly noun: string;
  readonly collection: string;
  /** The row's id for the name or id the user gave. */
  readonly idOf: (client: ApiClient, ref: string) => Promise<string>;
  /** What deleting it does besides, said in the prompt: `it stops firing`. */
  readonly effect?: string;
  /** How to bring one back, by default `POST <collection>/{id}/restore`; false: it is deleted for good. */
  readonly restore?: false | ((id: string) => string);
}

/**
 * The delete verbs: asked first (or `--yes`), the row found by name or id, then `DELETE`. `--json`:
 * `{id, deleted: true}`; otherwise what was deleted, and how to restore it, on stderr.
 */
export async function runDelete(kind: Deleted, options: { ref: string; yes: boolean; json: boolean }, ctx: Context): Promise<void> {
  const restorable = kind.restore !== false;
  const effect = [kind.effect, restorable ? 'restorable' : 'not restorable'].filter(Boolean).join('; ');
  await confirmDestructive(ctx.io, `Delete ${kind.noun} ${options.ref} (${effect})`, options.yes);
  const client = ctx.apiClient();
  const id = await kind.idOf(client, options.ref);
  await client.request({ method: 'DELETE', path: `${kind.collection}/${enc(id)}` });
  if (options.json) return printJson(ctx.io, { id, deleted: true });
  if (kind.restore === false) return void ctx.io.err(`Deleted ${kind.noun} ${id}.\n`);
  const restore = kind.restore?.(id) ?? `POST ${kind.collection}/${id}/restore`;
  ctx.io.err(`Deleted ${kind.noun} ${id}; ${restore} brings it back.\n`);
}

/** A delete verb: the kind, the verb's help and its one argument (the row's name or id). */
export interface DeleteVerb extends Deleted {
  readonly description: string;
  readonly argument: (command: Command) => Command;
}

/** The verb `<group> delete REF [--yes] [--json]` of a kind of rows, run by runDelete. */
export function deleteVerb(kind: DeleteVerb): Verb {
  return {
    define: (command) => void yesFlag(jsonFlag(kind.argument(command.description(kind.description)))),
    invoke: ({ positionals, raw, ctx }) => runDelete(kind, { ref: positionals[0]!, yes: flag.yes(raw), json: flag.json(raw) }, ctx),
  };
}
