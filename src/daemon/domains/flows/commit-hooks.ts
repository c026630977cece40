import type { FlowDefinition } from '../../../shared/flows/definition.js';
import type { FlowsTx } from './flows-repo.js';

/** A version being committed, as another domain sees it inside the commit's transaction. */
export interface CommittingVersion {
  readonly flow: { readonly id: string; readonly org_id: string };
  /** The new `flow_versions` row's id. */
  readonly versionId: string;
  readonly version: number;
  readonly definition: FlowDefinition;
}

/**
 * Something else that a committed version must carry (flow attachments pin their contents): it runs in
 * the commit's transaction, with the flow row locked, reads and writes through `trx` (the embedded
 * database has one connection), and may refuse the commit by throwing a Problem, which rolls it back.
 */
export type FlowCommitHook = (version: CommittingVersion, trx: FlowsTx) => Promise<void>;

/** The hooks every commit runs, whichever path commits (the commit route, git sync). */
export class CommitHooks {
  readonly #hooks: FlowCommitHook[] = [];

  add(hook: FlowCommitHook): void {
    this.#hooks.push(hook);
  }

  async run(version: CommittingVersion, trx: FlowsTx): Promise<void> {
    for (const hook of this.#hooks) await hook(version, trx);
  }
}
