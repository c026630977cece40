import { deleteVerb } from '../delete-verbs.js';
import { repositoryId } from './resolve.js';

/** `svc git-repos delete REPO`: `DELETE /git-repositories/{repo_id}`, for good; flows linked to it are 409 `conflict` (exit 1). */
export const { define, invoke } = deleteVerb({
  noun: 'git repository',
  collection: '/git-repositories',
  idOf: repositoryId,
  effect: 'its cache too',
  restore: false,
  description: 'Remove a git repository and its cache, for good; refused while flows link to it.',
  argument: (command) => command.argument('<repo>', 'repository id, or its name'),
});
