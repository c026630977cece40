import Koa from 'koa';

/** The baseline: a bare Koa app with one route and no middleware, on a random loopback port. */
const app = new Koa();
app.use((ctx) => {
  if (ctx.path === '/runs/r1' && ctx.method === 'GET') ctx.body = { ok: true };
  else ctx.status = 404;
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
