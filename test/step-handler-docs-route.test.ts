import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevIdp, type DevIdp } from '../src/daemon/dev-idp/index.js';
import { STEP_HANDLERS } from '../src/shared/flows/step-handlers/index.js';
import { startTestDaemon, type TestDaemon } from './helpers/daemon.js';
import { seedOrg, seedUser } from './helpers/seed.js';

let idp: DevIdp;
let daemon: TestDaemon;
const as: Record<string, string> = {};

beforeAll(async () => {
  idp = await startDevIdp();
  daemon = await startTestDaemon({ SERVICE_IDP_ISSUER: idp.issuer, SERVICE_ORG_AUTO_JOIN: 'false' });
  const db = daemon.services.db.knex;
  await seedOrg(db, 'acme', 'Acme');
  await seedUser(db, { sub: 'sub-carol', username: 'carol' }, [{ orgSlug: 'acme', role: 'viewer' }]);
  await seedUser(db, { sub: 'sub-erin', username: 'erin' });
  as.carol = `Bearer ${await idp.mintAccessToken({ sub: 'sub-carol', username: 'carol', email: 'carol@acme.test', realmRoles: [] })}`;
  as.erin = `Bearer ${await idp.mintAccessToken({ sub: 'sub-erin', username: 'erin', email: 'erin@example.test', realmRoles: [] })}`;
});
afterAll(async () => {
  await daemon?.close();
  await idp?.stop();
});

function docs(handlerId: string, who?: string): Promise<Response> {
  const headers: Record<string, string> = { 'x-org-id': 'acme' };
  if (who) headers.authorization = as[who]!;
  return fetch(`${daemon.url}/flows/step-handler-types/${encodeURIComponent(handlerId)}/docs`, { headers });
}

interface Docs {
  id: string;
  category: string;
  kinds: string[];
  internal: boolean;
  reserved_key_prefix: string;
  fields: {
    key: string;
    type: string;
    required: boolean;
    default?: unknown;
    enum?: string[];
    min?: number;
    max?: number;
    narrowing?: string;
    meaning: string;
  }[];
  rules: { id: string; description: string }[];
  markdown: string;
}

describe('GET /flows/step-handler-types/{handler_id}/docs', () => {
  it('serves a viewer the handler with every field and a markdown rendering', async () => {
    const response = await docs('container.run', 'carol');
    expect(response.status).toBe(200);
    const body = (await response.json()) as Docs;
    expect(body).toMatchObject({
      id: 'container.run',
      category: 'Actions',
      kinds: ['ACTION', 'EXECUTE'],
      internal: false,
      reserved_key_prefix: 'SERVICE_',
    });
    expect(body.fields.map((f) => f.key)).toEqual(STEP_HANDLERS.find((h) => h.id === 'container.run')!.fields.map((f) => f.key));
    expect(body.fields.find((f) => f.key === 'image')).toMatchObject({ type: 'string', required: true });
    expect(body.fields.find((f) => f.key === 'privileged')).toMatchObject({ type: 'boolean', default: false, narrowing: 'host_access' });
    expect(body.fields.find((f) => f.key === 'entrypoint')).toMatchObject({ type: 'object|null', default: null });
    expect(body.rules.map((r) => r.id)).toEqual(['egress_isolation']);
    expect(body.markdown).toContain('# container.run');
    expect(body.markdown).toContain('| privileged |');
  });

  it('answers every catalogued handler', async () => {
    for (const handler of STEP_HANDLERS) {
      const response = await docs(handler.id, 'carol');
      expect(response.status, handler.id).toBe(200);
      const body = (await response.json()) as Docs;
      expect(body.fields).toHaveLength(handler.fields.length);
    }
  });

  it('gives bounds and enums as data', async () => {
    const body = (await (await docs('probe.http', 'carol')).json()) as Docs;
    expect(body.fields.find((f) => f.key === 'attempts')).toMatchObject({ type: 'integer', default: 1, min: 1, max: 10 });
    expect(body.fields.find((f) => f.key === 'method')).toMatchObject({ type: 'enum', default: 'GET', enum: ['GET', 'HEAD', 'POST'] });
  });

  it('serves internal handlers marked internal', async () => {
    const response = await docs('general.noop', 'carol');
    expect(response.status).toBe(200);
    expect(((await response.json()) as Docs).internal).toBe(true);
  });

  it('answers 404 resource_not_found for an unknown handler', async () => {
    for (const id of ['ansible.run', 'playbook.run.extra', 'PLAYBOOK.RUN']) {
      const response = await docs(id, 'carol');
      expect(response.status, id).toBe(404);
      expect(((await response.json()) as { code: string }).code, id).toBe('resource_not_found');
    }
  });

  it('answers 401 unauthenticated without a credential', async () => {
    const response = await docs('container.run');
    expect(response.status).toBe(401);
    expect(((await response.json()) as { code: string }).code).toBe('unauthenticated');
  });

  it('answers 403 forbidden to a caller who is not a member of the organization', async () => {
    const response = await docs('container.run', 'erin');
    expect(response.status).toBe(403);
    expect(((await response.json()) as { code: string }).code).toBe('forbidden');
  });
});
