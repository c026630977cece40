import { deleteVerb } from '../delete-verbs.js';
import { repositoryId } from '../files/resolve.js';

/** `svc file-repos delete REPO`: `DELETE /file-repositories/{id}`, for good; one not empty is 409 `file_repository_not_empty` (exit 1). */
export const { define, invoke } = deleteVerb({
  noun: 'file repository',
  collection: '/file-repositories',
  idOf: repositoryId,
  effect: 'only an empty one; its folders too',
  restore: false,
  description: 'Delete an empty file repository (its folders go with it); one holding files or artifacts is refused.',
  argument: (command) => command.argument('<repo>', 'repository id, or its name'),
});
