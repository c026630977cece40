import { call, type Answer, type World } from './webhooks-fixtures.js';

/** An operation as `GET /config-exchange/operations/{id}` answers it, once it has finished (polled, no timing asserted). */
export async function finished(world: World, id: string, url = world.url): Promise<Record<string, any>> {
  for (let i = 0; i < 600; i++) {
    const response = await fetch(`${url}/config-exchange/operations/${id}`, { headers: { authorization: world.as.root! } });
    const body = (await response.json()) as Record<string, any>;
    if (!['queued', 'running'].includes(body.status)) return body;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`operation ${id} did not finish`);
}

/** Queues an operation as the platform admin; throws unless it is accepted. */
export async function queue(world: World, body: Record<string, unknown>): Promise<string> {
  const answer: Answer = await call(world, 'root', 'POST', '/config-exchange/operations', body);
  if (answer.status !== 202) throw new Error(`POST /config-exchange/operations answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body.correlation_id as string;
}

/** Queues an operation and waits for its end. */
export async function run(world: World, body: Record<string, unknown>): Promise<Record<string, any>> {
  return finished(world, await queue(world, body));
}
