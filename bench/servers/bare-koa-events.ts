import knexFactory from 'knex';
import Koa from 'koa';

/**
 * The baseline of the event-ingestion figure: a bare Koa app whose one route reads a batch of events as
 * JSON and writes them with one multi-row INSERT into a scratch table shaped as `run_events`, over knex
 * and pg with the daemon's pool size: no authentication, fencing, validation, deduplication or numbering.
 */
const knex = knexFactory({ client: 'pg', connection: process.env.BENCH_DATABASE_URL, pool: { min: 0, max: 10 } });
const app = new Koa();
app.use(async (ctx) => {
  const match = /^\/internal\/runs\/([^/]+)\/events$/.exec(ctx.path);
  if (!match || ctx.method !== 'POST') {
    ctx.status = ctx.path === '/ready' ? 200 : 404;
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
    events: { worker_seq: number; type: string; data?: unknown }[];
  };
  const runId = match[1];
  await knex('bench_events').insert(
    body.events.map((e) => ({
      run_id: runId,
      seq: e.worker_seq,
      type: e.type,
      data: JSON.stringify(e.data ?? {}),
      attempt: 1,
      worker_id: ctx.get('x-worker-id'),
      worker_seq: e.worker_seq,
    })),
  );
  ctx.body = { accepted: body.events.length };
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => void knex.destroy().then(() => process.exit(0))));
