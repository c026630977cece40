/**
 * Where `Problem` and the common problems lived before they moved below every user of them
 * (`src/shared/api/problem.ts`, `problems.ts`): kept for the tests that import them from here. New code
 * imports from `shared/api`.
 */
export { Problem } from '../../shared/api/problem.js';
export { problems } from '../../shared/api/problems.js';
