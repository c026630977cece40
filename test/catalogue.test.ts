import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildCatalogue, CATALOGUE } from '../src/shared/catalogue/catalogue.js';
import { mountRoutes, RouteTableError } from '../src/daemon/http/mount-routes.js';

interface SpecAction {
  action: string;
  policy: string;
  routes: string[];
}

const spec = JSON.parse(readFileSync(new URL('../../shared/spec/route-catalogue.json', import.meta.url), 'utf8')) as {
  actions: SpecAction[];
};

describe('the route table', () => {
  it('has every action of the specification with its default policy, and no other', () => {
    const ours = new Map(CATALOGUE.actions.map((a) => [a.action, a.policy]));
    const theirs = new Map(spec.actions.map((a) => [a.action, a.policy]));
    expect(ours).toEqual(theirs);
    expect(ours.size).toBe(109);
  });

  it('binds every method + path of the specification to the same action, and nothing else', () => {
    const ours = new Map(CATALOGUE.routes.map((r) => [r.key as string, r.action]));
    const theirs = new Map(spec.actions.flatMap((a) => a.routes.map((r) => [r, a.action] as const)));
    expect(ours).toEqual(theirs);
    expect(ours.size).toBe(348);
  });

  it('refuses a `disabled` default policy', () => {
    expect(() => buildCatalogue([{ action: 'x:y', policy: 'disabled', routes: ['GET /x'] }])).toThrow(TypeError);
  });

  it('refuses one method + path bound to two actions', () => {
    expect(() =>
      buildCatalogue([
        { action: 'x:a', policy: 'viewer', routes: ['GET /x'] },
        { action: 'x:b', policy: 'admin', routes: ['GET /x'] },
      ]),
    ).toThrow(TypeError);
  });

  it('refuses at start-up a handler for a route that has no action', () => {
    expect(() => mountRoutes(CATALOGUE, [{ 'GET /not-in-catalogue': { responses: {}, handle: () => {} } }])).toThrow(RouteTableError);
  });

  it('refuses at start-up two handlers for one route', () => {
    const handler = { responses: {}, handle: () => {} };
    expect(() => mountRoutes(CATALOGUE, [{ 'GET /health': handler }, { 'GET /health': handler }])).toThrow(RouteTableError);
  });
});
