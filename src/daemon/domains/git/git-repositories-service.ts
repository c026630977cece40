import type { ConnectionReport, CreateGitRepositoryBody, GitAuth, UpdateGitRepositoryBody } from '../../../shared/api/git.js';
import { Problem, problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { isUuid } from '../../../shared/ids.js';
import { parseSecretReference } from '../../../shared/secrets/reference.js';
import type { AuditWriter } from '../../audit/audit-writer.js';
import type { FlowCaller } from '../flows/flow-access.js';
import { SecretReferenceError, type SecretResolver } from '../secrets/secret-resolver.js';
import type { GitRemotes } from './git-remote.js';
import { isUniqueViolation, type GitRepositoriesRepo, type GitRepositoryFields, type GitRepositoryRow } from './git-repositories-repo.js';
import { checkRepositoryUrl } from './repository-url.js';
import { repositoryView } from './git-views.js';

const MANAGE = 'git_repository:manage';
const notFound = () => problems.resourceNotFound('Git repository');
const nameTaken = () => problems.conflict('A git repository of this organization already has this name.');

function authFields(auth: GitAuth): Pick<GitRepositoryFields, 'auth_type' | 'auth_username' | 'secret_ref' | 'known_hosts'> {
  if (auth.type === 'none') return { auth_type: 'none', auth_username: null, secret_ref: null, known_hosts: null };
  if (auth.type === 'token')
    return { auth_type: 'token', auth_username: auth.username ?? null, secret_ref: auth.secret_ref, known_hosts: null };
  return { auth_type: 'ssh_key', auth_username: null, secret_ref: auth.secret_ref, known_hosts: auth.known_hosts ?? null };
}

/** Git repositories of the active organization: CRUD, test-connection, and reads of a branch's tree and files. */
export class GitRepositoriesService {
  constructor(
    private readonly repo: GitRepositoriesRepo,
    private readonly remotes: GitRemotes,
    private readonly resolver: SecretResolver,
    private readonly audit: AuditWriter,
    private readonly options: { readonly allowFileUrls: boolean },
  ) {}

  async list(caller: FlowCaller, filter: { q?: string | undefined; limit: number; offset: number }) {
    const { rows, total } = await this.repo.list(caller.org.id, filter);
    return { items: rows.map(repositoryView), total, limit: filter.limit, offset: filter.offset };
  }

  async get(caller: FlowCaller, id: string) {
    return repositoryView(await this.find(caller, id));
  }

  /** A repository of the active organization; anything else (another's, a malformed id) is 404. */
  async find(caller: FlowCaller, id: string): Promise<GitRepositoryRow> {
    if (!isUuid(id)) throw notFound();
    const row = await this.repo.find(caller.org.id, id);
    if (!row) throw notFound();
    return row;
  }

  async create(caller: FlowCaller, body: CreateGitRepositoryBody) {
    checkRepositoryUrl(body.url, this.options.allowFileUrls);
    const auth = body.auth ?? { type: 'none' };
    await this.#checkReference(caller, auth);
    const fields: GitRepositoryFields = {
      name: body.name,
      url: body.url,
      default_branch: body.default_branch ?? 'main',
      ...authFields(auth),
    };
    return this.#unique(() =>
      this.repo.transaction(async (trx) => {
        const row = await this.repo.insert(trx, { ...fields, org_id: caller.org.id, created_by: caller.sub });
        await this.#record(caller, 'entity.created', row, { name: row.name, url: row.url, auth: repositoryView(row).auth }, trx);
        return repositoryView(row);
      }),
    );
  }

  async update(caller: FlowCaller, id: string, body: UpdateGitRepositoryBody) {
    if (body.url !== undefined) checkRepositoryUrl(body.url, this.options.allowFileUrls);
    if (body.auth) await this.#checkReference(caller, body.auth);
    const found = await this.find(caller, id);
    const changes: Partial<GitRepositoryFields> = {
      ...(body.name !== undefined ? { name: body.name } : {}),
      ...(body.url !== undefined ? { url: body.url } : {}),
      ...(body.default_branch !== undefined ? { default_branch: body.default_branch } : {}),
      ...(body.auth ? authFields(body.auth) : {}),
    };
    return this.#unique(() =>
      this.repo.transaction(async (trx) => {
        // What changes is judged on the row as locked: one read before could have been changed since.
        const current = await this.repo.lock(trx, caller.org.id, found.id);
        if (!current) throw notFound();
        const changed = Object.keys(changes).filter(
          (key) => changes[key as keyof GitRepositoryFields] !== current[key as keyof GitRepositoryFields],
        );
        if (changed.length === 0) return repositoryView(current);
        await this.repo.update(trx, current.id, { ...changes, updated_by: caller.sub });
        const row = (await this.repo.find(caller.org.id, current.id, trx))!;
        await this.#record(caller, 'entity.updated', row, { name: row.name, changes: changed, auth: repositoryView(row).auth }, trx);
        return repositoryView(row);
      }),
    );
  }

  /** Deleted outright, its cache too; refused (409) while live flows link to it (soft-deleted flows' links go with it). */
  async delete(caller: FlowCaller, id: string): Promise<void> {
    const found = await this.find(caller, id);
    await this.repo.transaction(async (trx) => {
      const row = await this.repo.lock(trx, caller.org.id, found.id);
      if (!row) throw notFound();
      if (row.linked_flows > 0) throw problems.conflict(`${row.linked_flows} flow(s) link to this repository: detach them first.`);
      await this.repo.delete(trx, row.id);
      await this.#record(caller, 'entity.deleted', row, { name: row.name, url: row.url }, trx);
    });
    await this.remotes.cache.remove(found.id);
  }

  /** Whether the remote answers with these credentials and has the branch; a report, not a refusal. */
  async testConnection(caller: FlowCaller, id: string, branch: string | undefined): Promise<ConnectionReport> {
    const row = await this.find(caller, id);
    const wanted = branch ?? row.default_branch;
    try {
      const heads = await this.remotes.with(row, (_dir, remote) => this.remotes.cache.branches(remote));
      const head = heads.get(wanted);
      if (!head)
        return { ok: false, reason: 'branch_missing', branch: wanted, head_sha: null, detail: `The remote has no branch "${wanted}".` };
      return { ok: true, reason: 'reachable', branch: wanted, head_sha: head, detail: 'The remote answered and has the branch.' };
    } catch (error) {
      if (error instanceof Problem && error.code === 'git_remote_failed') {
        const reason = error.extensions.reason as ConnectionReport['reason'];
        return {
          ok: false,
          reason: reason === ('failed' as string) ? 'unreachable' : reason,
          branch: wanted,
          head_sha: null,
          detail: error.message,
        };
      }
      throw error;
    }
  }

  async tree(caller: FlowCaller, id: string, query: { ref?: string | undefined; path?: string | undefined }) {
    const row = await this.find(caller, id);
    const ref = query.ref ?? row.default_branch;
    const path = query.path ?? '';
    const { dir, head } = await this.remotes.fetch(row, ref);
    const entries = await this.remotes.cache.tree(dir, head, path);
    if (!entries) throw problem('git_path_not_found', `Nothing at "${path}" on "${ref}".`, { branch: ref, commit_sha: head, path });
    return { ref, commit_sha: head, path, entries };
  }

  async file(caller: FlowCaller, id: string, query: { ref?: string | undefined; path: string }) {
    const row = await this.find(caller, id);
    const ref = query.ref ?? row.default_branch;
    const { dir, head } = await this.remotes.fetch(row, ref);
    const bytes = await this.remotes.cache.file(dir, head, query.path);
    if (!bytes)
      throw problem('git_path_not_found', `No file at "${query.path}" on "${ref}".`, { branch: ref, commit_sha: head, path: query.path });
    return { ref, commit_sha: head, path: query.path, size: bytes.length, ...fileContent(bytes) };
  }

  /** A reference must name one of the organization's secrets (422 otherwise); its value is not kept. */
  async #checkReference(caller: FlowCaller, auth: GitAuth): Promise<void> {
    if (auth.type === 'none') return;
    const refused = (message: string) => problems.validation([{ path: 'auth.secret_ref', message }]);
    if (!parseSecretReference(auth.secret_ref)) throw refused('not a secret reference');
    try {
      await this.resolver.resolveReference(caller.org.id, auth.secret_ref);
    } catch (error) {
      if (error instanceof SecretReferenceError) throw refused(`the reference does not resolve (${error.problem})`);
      throw error;
    }
  }

  #record(
    caller: FlowCaller,
    eventType: string,
    row: GitRepositoryRow,
    details: Record<string, unknown>,
    trx: Parameters<AuditWriter['record']>[2],
  ) {
    return this.audit.record(
      caller.audit,
      { eventType, action: MANAGE, resourceType: 'git_repository', resourceId: row.id, outcome: 'success', orgId: row.org_id, details },
      trx,
    );
  }

  async #unique<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error)) throw nameTaken();
      throw error;
    }
  }
}

/** A file's bytes as text when they are UTF-8, else as base64: a binary decoded as UTF-8 loses bytes for good. */
function fileContent(bytes: Buffer): { encoding: 'utf-8' | 'base64'; content: string } {
  try {
    return { encoding: 'utf-8', content: new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes) };
  } catch {
    return { encoding: 'base64', content: bytes.toString('base64') };
  }
}
