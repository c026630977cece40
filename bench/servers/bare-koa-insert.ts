import knexFactory from 'knex';
import Koa from 'koa';

/**
 * The baseline of the run-admission figure: a bare Koa app whose one route reads a JSON body and does
 * one INSERT … RETURNING into a scratch table, over knex and pg with the daemon's pool size.
 */
const knex = knexFactory({ client: 'pg', connection: process.env.BENCH_DATABASE_URL, pool: { min: 0, max: 10 } });
const app = new Koa();
app.use(async (ctx) => {
  if (ctx.path !== '/runs' || ctx.method !== 'POST') {
    ctx.status = ctx.path === '/ready' ? 200 : 404;
    return;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  const [row] = await knex('bench_scratch')
    .insert({ payload: JSON.stringify(body) })
    .returning('id');
  ctx.status = 201;
  ctx.body = row;
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => void knex.destroy().then(() => process.exit(0))));
