import type { FlowGitLink, GitRepository, SyncEntry } from '../../../shared/api/git.js';
import type { GitRepositoryRow } from './git-repositories-repo.js';
import type { FlowGitLinkRow, SyncHistoryRow } from './git-sync-repo.js';

const iso = (value: Date | string) => new Date(value).toISOString();
const isoOrNull = (value: Date | string | null) => (value === null ? null : iso(value));

/** A repository as answers show it: its secret reference, never a value. */
export function repositoryView(row: GitRepositoryRow): GitRepository {
  const auth: GitRepository['auth'] = { type: row.auth_type };
  if (row.auth_type === 'token' && row.auth_username) auth.username = row.auth_username;
  if (row.secret_ref) auth.secret_ref = row.secret_ref;
  if (row.auth_type === 'ssh_key' && row.known_hosts) auth.known_hosts = row.known_hosts;
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    url: row.url,
    default_branch: row.default_branch,
    auth,
    linked_flows: Number(row.linked_flows ?? 0),
    last_fetched_at: isoOrNull(row.last_fetched_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    created_by: row.created_by,
    updated_by: row.updated_by,
  };
}

export function linkView(row: FlowGitLinkRow): FlowGitLink {
  return {
    flow_id: row.flow_id,
    repo_id: row.repo_id,
    branch: row.branch,
    path: row.path,
    mode: row.mode,
    last_synced_sha: row.last_synced_sha,
    last_synced_at: isoOrNull(row.last_synced_at),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export function syncEntryView(row: SyncHistoryRow): SyncEntry {
  return {
    id: row.id,
    repo_id: row.repo_id,
    flow_id: row.flow_id,
    direction: row.direction,
    branch: row.branch,
    path: row.path,
    commit_sha: row.commit_sha,
    commit_author: row.commit_author,
    committed_at: isoOrNull(row.committed_at),
    flow_version: row.flow_version,
    forced: row.forced,
    outcome: row.outcome as SyncEntry['outcome'],
    code: row.code,
    requested_by: row.requested_by,
    created_at: iso(row.created_at),
  };
}
