import { eventBatchAnswer, eventBatchBody } from '../../src/shared/api/run-callbacks.js';
import { loadConfig } from '../../src/daemon/config/config.js';
import { startDaemon } from '../../src/daemon/daemon.js';
import { appendDaemonEvent } from '../../src/daemon/domains/runs/run-event-log.js';
import { route } from '../../src/daemon/http/route.js';
import { createLogger } from '../../src/daemon/logging/logger.js';

/**
 * Daemon A of the stream figure until the worker's posting route (`POST /internal/runs/{run_id}/events`,
 * the run callbacks' part of issue 19) is on this branch: the daemon as `svcd` starts it, with a
 * stand-in for that route that appends the batch in one transaction through the daemon's own append
 * (sequence from runs.event_seq, NOTIFY on commit), as the real ingestion does. No fencing, no
 * deduplication: it times the fan-out, not the ingestion. Once the route lands, the figure runs `svcd`.
 */
const config = loadConfig(process.env);
const log = createLogger(config.logLevel);
const daemon = await startDaemon(config, log, {
  extraDomains: (services) => [
    {
      'POST /internal/runs/{run_id}/events': route({
        summary: 'Stand-in of the worker event batch (bench only).',
        body: eventBatchBody,
        responses: { 200: { description: 'Appended', schema: eventBatchAnswer } },
        async handle(ctx, { body }) {
          const runId = ctx.state.params.run_id!;
          const last = await services.db.knex.transaction(async (trx) => {
            let seq = 0;
            for (const event of body.events) seq = await appendDaemonEvent(trx, runId, { type: event.type, data: event.data ?? {} });
            return seq;
          });
          ctx.body = { accepted: body.events.length, duplicates: 0, last_seq: last };
        },
      }),
    },
  ],
});
process.on('SIGTERM', () => void daemon.stop().then(() => process.exit(0)));
