import type { FlowGitLink, SyncEntry } from '../../../shared/api/git.js';
import { Problem, problem } from '../../../shared/api/problem.js';
import { flowFromYaml, flowToYaml } from '../../../shared/flows/flow-yaml.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { FlowCaller } from '../flows/flow-access.js';
import type { FlowRow } from '../flows/flows-repo.js';
import type { FlowGitPort } from '../flows/module.js';
import type { GitRemotes } from './git-remote.js';
import type { GitRepositoriesService } from './git-repositories-service.js';
import type { GitRepositoryRow } from './git-repositories-repo.js';
import type { FlowGitLinkRow, GitSyncRepo, NewSyncEntry, SyncHistoryRow } from './git-sync-repo.js';
import { linkView, syncEntryView } from './git-views.js';
import { pushToRemote } from './push.js';

const MANAGE = 'flow_git:manage';
const PUSH = 'flow_git:push';

const notLinked = () => problem('flow_not_linked', 'The flow is not linked to a git repository.');
const sharedFlow = () => problem('shared_read_only', 'This flow belongs to the shared organization: duplicate it to sync it with git.');

/** A flow's link to git, pull into the flow, push from it, its YAML preview and sync history; a repository's sync of every linked flow. */
export class FlowGitService {
  constructor(
    private readonly flows: FlowGitPort,
    private readonly repositories: GitRepositoriesService,
    private readonly remotes: GitRemotes,
    private readonly sync: GitSyncRepo,
    private readonly audit: AuditWriter,
  ) {}

  async link(
    caller: FlowCaller,
    flowId: string,
    body: { repo_id: string; branch?: string | undefined; path: string; mode?: 'draft' | 'version' | undefined },
  ) {
    const repo = await this.repositories.find(caller, body.repo_id);
    const branch = body.branch ?? repo.default_branch;
    const mode = body.mode ?? 'draft';
    return this.flows.withWritable(caller, flowId, async (trx, flow): Promise<FlowGitLink> => {
      const before = await this.sync.link(flow.id, trx);
      const samePlace = before !== undefined && before.repo_id === repo.id && before.branch === branch && before.path === body.path;
      const row = await this.sync.upsertLink(
        trx,
        { flow_id: flow.id, repo_id: repo.id, branch, path: body.path, mode, by: caller.sub },
        samePlace,
      );
      await this.#record(caller, flow, 'flow.git_linked', MANAGE, { repo_id: repo.id, branch, path: body.path, mode }, trx);
      return linkView(row);
    });
  }

  async detach(caller: FlowCaller, flowId: string): Promise<void> {
    await this.flows.withWritable(caller, flowId, async (trx, flow) => {
      const link = await this.sync.link(flow.id, trx);
      if (!link) throw notLinked();
      await this.sync.detach(trx, flow.id);
      await this.#record(caller, flow, 'flow.git_detached', MANAGE, { repo_id: link.repo_id, branch: link.branch, path: link.path }, trx);
    });
  }

  async preview(caller: FlowCaller, flowId: string, version: number | 'draft' | undefined) {
    const flow = await this.flows.readable(caller, flowId);
    const chosen = version ?? (flow.latest_version > 0 ? flow.latest_version : 'draft');
    const definition = chosen === 'draft' ? flow.draft_json : await this.flows.version(flow, chosen);
    if (!definition) throw problem('resource_not_found', 'Flow version not found.');
    return {
      flow_id: flow.id,
      version: chosen,
      yaml: flowToYaml({ name: flow.name, description: flow.description, version: chosen, definition }),
    };
  }

  async flowHistory(caller: FlowCaller, flowId: string, page: { limit: number; offset: number }) {
    const flow = await this.flows.readable(caller, flowId);
    const { rows, total } = await this.sync.history({ flow_id: flow.id }, page);
    return { items: rows.map(syncEntryView), total, ...page };
  }

  async repositoryHistory(caller: FlowCaller, repoId: string, page: { limit: number; offset: number }) {
    const repo = await this.repositories.find(caller, repoId);
    const { rows, total } = await this.sync.history({ repo_id: repo.id }, page);
    return { items: rows.map(syncEntryView), total, ...page };
  }

  /** The linked file's YAML into the flow (draft or new version, as the link says); every attempt is in the history. */
  async pull(caller: FlowCaller, flowId: string, force: boolean): Promise<SyncEntry> {
    const { flow, link, repo } = await this.#linked(caller, flowId);
    const { entry, error } = await this.#pull(caller, flow, link, repo, force);
    if (error) throw error;
    return entry;
  }

  /** Pulls every flow linked to the repository; each flow's outcome, refusals included, is an entry. */
  async syncRepository(caller: FlowCaller, repoId: string, force: boolean) {
    const repo = await this.repositories.find(caller, repoId);
    const items: SyncEntry[] = [];
    for (const link of await this.sync.linksOf(repo.id)) {
      // A linked flow deleted meanwhile (404) is skipped; anything else, a lost database included, is not.
      const flow = await this.flows.readable(caller, link.flow_id).catch((error: unknown) => {
        if (error instanceof Problem) return undefined;
        throw error;
      });
      if (!flow || flow.org_id !== caller.org.id) continue;
      items.push((await this.#pull(caller, flow, link, repo, force)).entry);
    }
    return { repo_id: repo.id, items };
  }

  /** The newest committed version as YAML, committed on the linked branch and pushed. */
  async push(caller: FlowCaller, flowId: string, input: { force: boolean; message?: string | undefined }): Promise<SyncEntry> {
    const { flow, link, repo } = await this.#linked(caller, flowId);
    const base = this.#entry(caller, flow, link, 'push', input.force);
    try {
      if (flow.latest_version === 0) throw problem('flow_not_committed', 'The flow has no committed version to push: commit it first.');
      const definition = (await this.flows.version(flow, flow.latest_version))!;
      const yaml = flowToYaml({ name: flow.name, description: flow.description, version: flow.latest_version, definition });
      const pushed = await pushToRemote(this.remotes, repo, link, {
        yaml,
        force: input.force,
        message: `${input.message ?? `Flow "${flow.name}" version ${flow.latest_version}`}\n\nPushed from svc by ${actorName(caller)}: flow ${flow.id}, version ${flow.latest_version}.`,
        author: { name: actorName(caller), email: `${(caller.sub ?? 'svc').replace(/[^A-Za-z0-9._-]/g, '_')}@users.svc.invalid` },
      });
      return await this.flows.withWritable(caller, flow.id, async (trx) => {
        await this.sync.synced(trx, flow.id, pushed.commit.sha, definition);
        const row = await this.sync.record(
          { ...base, ...commitColumns(pushed.commit), flow_version: flow.latest_version, outcome: pushed.changed ? 'pushed' : 'unchanged' },
          trx,
        );
        await this.#record(
          caller,
          flow,
          'flow.git_pushed',
          PUSH,
          {
            repo_id: repo.id,
            branch: link.branch,
            path: link.path,
            commit_sha: pushed.commit.sha,
            version: flow.latest_version,
            forced: input.force,
          },
          trx,
        );
        return syncEntryView(row);
      });
    } catch (error) {
      await this.#recordFailure(base, error);
      throw error;
    }
  }

  async #pull(caller: FlowCaller, flow: FlowRow, link: FlowGitLinkRow, repo: GitRepositoryRow, force: boolean) {
    const base = this.#entry(caller, flow, link, 'pull', force);
    let commit: Partial<Pick<NewSyncEntry, 'commit_sha' | 'commit_author' | 'committed_at'>> = {};
    try {
      const { dir, head } = await this.remotes.fetch(repo, link.branch);
      commit = commitColumns(await this.remotes.cache.commitInfo(dir, head));
      const bytes = await this.remotes.cache.file(dir, head, link.path);
      if (!bytes)
        throw problem('git_path_not_found', `No file at "${link.path}" on "${link.branch}".`, {
          branch: link.branch,
          commit_sha: head,
          path: link.path,
        });
      const parsed = flowFromYaml(bytes.toString('utf8'), link.mode === 'version');
      if (!parsed.ok) {
        const [first] = parsed.issues;
        throw problem(
          'invalid_flow_yaml',
          `${link.path}:${first!.line}:${first!.column}: ${first!.path ? `${first!.path}: ` : ''}${first!.message}`,
          {
            line: first!.line,
            column: first!.column,
            path: first!.path,
            commit_sha: head,
            errors: parsed.issues,
          },
        );
      }
      let row: SyncHistoryRow | undefined;
      await this.flows.pull(caller, flow.id, {
        definition: parsed.definition,
        mode: link.mode,
        force,
        baseline: link.synced_definition_json,
        message: `Pulled from git: ${link.branch}:${link.path} at ${head.slice(0, 12)}`,
        source: { repo_id: repo.id, branch: link.branch, path: link.path, commit_sha: head },
        within: async (trx, result) => {
          await this.sync.synced(trx, flow.id, head, parsed.definition);
          row = await this.sync.record({ ...base, ...commit, flow_version: result.version, outcome: result.outcome }, trx);
        },
      });
      return { entry: syncEntryView(row!) };
    } catch (error) {
      const row = await this.#recordFailure({ ...base, ...commit }, error);
      if (!row) throw error;
      return { entry: syncEntryView(row), error };
    }
  }

  async #linked(caller: FlowCaller, flowId: string) {
    const flow = await this.flows.readable(caller, flowId);
    if (flow.org_id !== caller.org.id) throw sharedFlow();
    const link = await this.sync.link(flow.id);
    if (!link) throw notLinked();
    const repo = await this.repositories.find(caller, link.repo_id);
    return { flow, link, repo };
  }

  #entry(caller: FlowCaller, flow: FlowRow, link: FlowGitLinkRow, direction: 'pull' | 'push', forced: boolean): NewSyncEntry {
    return {
      org_id: flow.org_id,
      repo_id: link.repo_id,
      flow_id: flow.id,
      direction,
      branch: link.branch,
      path: link.path,
      commit_sha: null,
      commit_author: null,
      committed_at: null,
      flow_version: null,
      forced,
      outcome: 'failed',
      code: null,
      requested_by: caller.sub,
    };
  }

  /** A refusal or failure answered with a Problem is recorded with its code; anything else (a lost database) is not. */
  async #recordFailure(entry: NewSyncEntry, error: unknown): Promise<SyncHistoryRow | undefined> {
    if (!(error instanceof Problem)) return undefined;
    return this.sync.record({ ...entry, outcome: error.status >= 500 ? 'failed' : 'refused', code: error.code });
  }

  #record(
    caller: FlowCaller,
    flow: FlowRow,
    eventType: string,
    action: string,
    details: Record<string, unknown>,
    trx: Parameters<AuditWriter['record']>[2],
  ) {
    return this.audit.record(
      caller.audit,
      {
        eventType,
        action,
        resourceType: 'flow',
        resourceId: flow.id,
        outcome: 'success',
        orgId: flow.org_id,
        details: { name: flow.name, ...details },
      },
      trx,
    );
  }
}

function actorName(caller: FlowCaller): string {
  return caller.audit?.username ?? caller.sub ?? 'svc';
}

function commitColumns(commit: { sha: string; author: string; at: Date }) {
  return { commit_sha: commit.sha, commit_author: commit.author, committed_at: commit.at };
}
