import knexFactory from 'knex';
import Koa from 'koa';
import { DEVICE_COLUMNS } from '../../src/daemon/domains/inventory/devices-repo.js';
import { RUN_COLUMNS } from '../../src/daemon/domains/runs/run-view.js';

/**
 * The baseline of the read-path figures: a bare Koa app whose routes each do one SELECT of 50 rows
 * (the columns the API reads, newest or by name, no filter, no count) over knex and pg with the
 * daemon's pool size, and answer them as pg parsed them, serialized by Koa (JSON.stringify).
 */
const knex = knexFactory({ client: 'pg', connection: process.env.BENCH_DATABASE_URL, pool: { min: 0, max: 10 } });
const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method === 'GET' && ctx.path === '/runs') {
    ctx.body = await knex('runs').select(RUN_COLUMNS).orderBy('created_at', 'desc').limit(50);
  } else if (ctx.method === 'GET' && ctx.path === '/devices') {
    ctx.body = await knex('devices').select(DEVICE_COLUMNS).orderBy('name').limit(50);
  } else {
    ctx.status = ctx.path === '/ready' ? 200 : 404;
  }
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => void knex.destroy().then(() => process.exit(0))));
