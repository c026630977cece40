import { bulkAnswer, bulkBody, MAX_BULK_IDS, type BulkAnswer } from '../../../shared/api/inventory.js';
import { route } from '../../http/route.js';
import type { DomainRoutes } from '../../http/types.js';
import type { Actor } from './access.js';
import { actorOf } from './request.js';

type BulkOperation = (actor: Actor, ids: readonly string[]) => Promise<BulkAnswer>;

/** What a resource with bulk routes does with a request's ids, each in one transaction. */
export interface BulkOperations {
  bulkDelete: BulkOperation;
  bulkRestore: BulkOperation;
  bulkPurge: BulkOperation;
}

/**
 * `POST /<plural>/bulk/delete`, `…/restore` and `…/permanent`: the same body (`{ids}`) and answer (one
 * result per distinct id) for every resource; `outcomes` names the statuses its answers can hold.
 */
export function bulkRoutes(plural: 'sites' | 'devices', operations: BulkOperations, outcomes: string): DomainRoutes {
  const declare = (verb: string, apply: BulkOperation, manner = '') =>
    route({
      summary: `${verb} up to ${MAX_BULK_IDS} ${plural} \`{ids}\`${manner} in one transaction.`,
      body: bulkBody,
      responses: { 200: { description: `One result per distinct id: ${outcomes}`, schema: bulkAnswer } },
      async handle(ctx, { body }) {
        ctx.body = await apply(actorOf(ctx), body.ids);
      },
    });
  return {
    [`POST /${plural}/bulk/delete`]: declare('Soft-delete', (actor, ids) => operations.bulkDelete(actor, ids)),
    [`POST /${plural}/bulk/restore`]: declare('Restore', (actor, ids) => operations.bulkRestore(actor, ids)),
    [`POST /${plural}/bulk/permanent`]: declare('Delete', (actor, ids) => operations.bulkPurge(actor, ids), ' for good'),
  };
}
