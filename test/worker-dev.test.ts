import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyTemplate, type DatabaseLocation } from './helpers/database.js';
import { collect, spawnTs, waitForListening } from './helpers/spawn.js';

let location: DatabaseLocation;
beforeAll(async () => {
  location = await copyTemplate();
});
afterAll(() => location?.drop());

async function json<T>(response: Response, status: number): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
}

describe('svcd dev', () => {
  it('runs a flow out of the box with its in-process worker, and stops it with the daemon', async () => {
    // No internal token is set: dev makes one for its worker (authentication off lets any caller through, the worker included).
    const child = spawnTs('src/daemon/main.ts', ['dev'], {
      ...location.env,
      SERVICE_PORT: '0',
      SERVICE_DEV_IDP_PORT: '0',
      SERVICE_AUTH_DISABLED: 'true',
    });
    const { finished } = collect(child);
    try {
      const url = await waitForListening(child);
      const post = (path: string, body: unknown) =>
        fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const flow = await json<{ id: string }>(
        await post('/flows', {
          name: 'hello',
          definition: {
            steps: [
              { id: 'a', handler: 'general.noop', config: {} },
              { id: 'b', handler: 'general.sleep', config: { seconds: 1 } },
            ],
            edges: [{ from: 'a', to: 'b' }],
          },
        }),
        201,
      );
      await json(await post(`/flows/${flow.id}/commit`, {}), 201);
      const run = await json<{ id: string }>(await post('/runs', { flow_id: flow.id }), 201);
      let status = 'queued';
      for (let i = 0; i < 200 && !['succeeded', 'failed', 'cancelled'].includes(status); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        status = (await json<{ status: string }>(await fetch(`${url}/runs/${run.id}`), 200)).status;
      }
      expect(status).toBe('succeeded');
    } finally {
      child.kill('SIGTERM');
      expect((await finished).code).toBe(0);
    }
  });
});
