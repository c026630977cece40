import { siteId } from '../runs/resolve.js';
import { deleteVerb } from '../delete-verbs.js';
import { siteArgument } from './update.js';

/** `svc sites delete SITE`: `DELETE /sites/{site_id}` (soft). */
export const { define, invoke } = deleteVerb({
  noun: 'site',
  collection: '/sites',
  idOf: siteId,
  description: 'Soft-delete a site (restorable through the API).',
  argument: siteArgument,
});
