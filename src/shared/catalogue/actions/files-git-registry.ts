import type { ActionDefinition } from '../types.js';

/** Catalogue section "files, git, registry". */
export const filesGitRegistryActions: readonly ActionDefinition[] = [
  {
    action: 'file_repository:view',
    policy: 'viewer',
    routes: [
      'GET /file-repositories/{file_repository_id}/folders',
      'GET /file-repositories/kinds',
      'GET /file-repositories/{file_repository_id}',
      'GET /file-repositories',
    ],
  },
  {
    action: 'file_repository:manage',
    policy: 'admin',
    routes: [
      'POST /file-repositories/{file_repository_id}/set-default',
      'POST /file-repositories/ensure-default',
      'PATCH /file-repositories/{file_repository_id}',
      'DELETE /file-repositories/{file_repository_id}',
      'POST /file-repositories',
    ],
  },
  {
    action: 'file_repository:test',
    policy: 'admin',
    routes: ['POST /file-repositories/{file_repository_id}/test-connection'],
  },
  {
    action: 'file:view',
    policy: 'viewer',
    note: 'time-limited presigned URL usable without authentication.',
    routes: [
      'POST /files/{file_id}/download-url',
      'GET /files/{file_id}/download',
      'GET /files/{file_id}/usage',
      'GET /files/{file_id}/{filename}',
      'GET /files/{file_id}',
      'GET /files',
    ],
  },
  {
    action: 'file:manage',
    policy: 'admin',
    note: 'server fetches a URL. permanent.',
    routes: [
      'POST /file-repositories/{file_repository_id}/folders/rename',
      'POST /file-repositories/{file_repository_id}/files/upload',
      'POST /file-repositories/{file_repository_id}/files/import',
      'POST /file-repositories/{file_repository_id}/folders',
      'DELETE /file-repositories/{file_repository_id}/folders',
      'POST /files/{file_id}/move',
      'DELETE /files/{file_id}',
    ],
  },
  {
    action: 'git_repository:view',
    policy: 'viewer',
    routes: [
      'GET /git-repositories/{repo_id}/sync-history',
      'GET /git-repositories/{repo_id}/tree',
      'GET /git-repositories/{repo_id}/file',
      'GET /git-repositories/{repo_id}',
      'GET /git-repositories',
    ],
  },
  {
    action: 'git_repository:manage',
    policy: 'operator',
    routes: ['PATCH /git-repositories/{repo_id}', 'DELETE /git-repositories/{repo_id}', 'POST /git-repositories'],
  },
  {
    action: 'git_repository:test',
    policy: 'operator',
    routes: ['POST /git-repositories/{repo_id}/test-connection'],
  },
  {
    action: 'git_repository:sync',
    policy: 'operator',
    note: 'pull-sync every linked flow; force can overwrite dirty drafts.',
    routes: ['POST /git-repositories/{repo_id}/sync'],
  },
  {
    action: 'registry_credential:view',
    policy: 'viewer',
    note: 'Password only as a secret reference.',
    routes: ['GET /registry-credentials/{credential_id}', 'GET /registry-credentials'],
  },
  {
    action: 'registry_credential:manage',
    policy: 'admin',
    routes: ['PATCH /registry-credentials/{credential_id}', 'DELETE /registry-credentials/{credential_id}', 'POST /registry-credentials'],
  },
  {
    action: 'registry_credential:test',
    policy: 'admin',
    routes: ['POST /registry-credentials/{credential_id}/test'],
  },
  {
    action: 'registry:authorize',
    policy: 'custom',
    routes: ['GET /registry/authorize'],
  },
  {
    action: 'image:view',
    policy: 'viewer',
    routes: ['GET /images/repositories', 'GET /images/namespaces', 'GET /images/repository'],
  },
  {
    action: 'image:manage',
    policy: 'admin',
    note: 'own organization namespace, cached copies included.',
    routes: ['DELETE /images/repository/tag', 'DELETE /images/repository'],
  },
  {
    action: 'image:manage_global',
    policy: 'admin',
    routes: ['DELETE /platform/images/repository/tag', 'DELETE /platform/images/repository', 'GET /platform/images/usage'],
  },
  {
    action: 'binary_artifact:view',
    policy: 'admin',
    routes: ['POST /binary-artifacts/bulk-download', 'GET /binary-artifacts'],
  },
  {
    action: 'binary_artifact:purge',
    policy: 'admin',
    note: 'no restore.',
    routes: ['POST /binary-artifacts/bulk-delete', 'DELETE /binary-artifacts/{artifact_id}'],
  },
];
