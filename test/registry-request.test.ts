import { describe, expect, it } from 'vitest';
import { mayAccess, namespaceOf } from '../src/shared/registry/registry-namespaces.js';
import { readRegistryRequest } from '../src/shared/registry/registry-request.js';

const DIGEST = 'sha256:' + 'a'.repeat(64);
const REPO = 'orgs/acme/docker.io/library/alpine';

describe('readRegistryRequest: method and URI to (repository, pull|push)', () => {
  it.each([
    ['GET', '/v2/', { kind: 'base' }],
    ['HEAD', '/v2', { kind: 'base' }],
    ['GET', `/v2/${REPO}/manifests/3.19`, { kind: 'access', needs: [{ repository: REPO, action: 'pull' }] }],
    ['HEAD', `/v2/${REPO}/manifests/${DIGEST}`, { kind: 'access', needs: [{ repository: REPO, action: 'pull' }] }],
    ['GET', `/v2/${REPO}/blobs/${DIGEST}`, { kind: 'access', needs: [{ repository: REPO, action: 'pull' }] }],
    ['GET', `/v2/${REPO}/tags/list?n=10`, { kind: 'access', needs: [{ repository: REPO, action: 'pull' }] }],
    ['GET', `/v2/${REPO}/referrers/${DIGEST}`, { kind: 'access', needs: [{ repository: REPO, action: 'pull' }] }],
    ['PUT', `/v2/${REPO}/manifests/3.19`, { kind: 'access', needs: [{ repository: REPO, action: 'push' }], publishes: '3.19' }],
    ['POST', `/v2/${REPO}/blobs/uploads/`, { kind: 'access', needs: [{ repository: REPO, action: 'push' }] }],
    ['PATCH', `/v2/${REPO}/blobs/uploads/0f1e-2d3c?_state=abc%3D`, { kind: 'access', needs: [{ repository: REPO, action: 'push' }] }],
    ['PUT', `/v2/${REPO}/blobs/uploads/0f1e?digest=${DIGEST}`, { kind: 'access', needs: [{ repository: REPO, action: 'push' }] }],
    [
      'POST',
      `/v2/${REPO}/blobs/uploads/?mount=${DIGEST}&from=global/base/debian`,
      {
        kind: 'access',
        needs: [
          { repository: REPO, action: 'push' },
          { repository: 'global/base/debian', action: 'pull' },
        ],
      },
    ],
    ['DELETE', `/v2/${REPO}/manifests/${DIGEST}`, { kind: 'refused', reason: 'delete' }],
    ['DELETE', `/v2/${REPO}/blobs/${DIGEST}`, { kind: 'refused', reason: 'delete' }],
    ['DELETE', `/v2/${REPO}/blobs/uploads/0f1e`, { kind: 'refused', reason: 'delete' }],
    ['GET', '/v2/_catalog', { kind: 'refused', reason: 'catalog' }],
    ['GET', '/v2/_catalog?n=100', { kind: 'refused', reason: 'catalog' }],
    ['PUT', `/v2/${REPO}/blobs/${DIGEST}`, { kind: 'refused', reason: 'unknown' }],
    ['POST', '/v2/', { kind: 'refused', reason: 'unknown' }],
    ['GET', '/v1/_ping', { kind: 'refused', reason: 'unknown' }],
    ['GET', `/v2/orgs/acme/../other/x/manifests/v1`, { kind: 'refused', reason: 'unknown' }],
    ['GET', `/v2/orgs/acme/%2e%2e/other/manifests/v1`, { kind: 'refused', reason: 'unknown' }],
    ['GET', `/v2/Orgs/acme/x/manifests/v1`, { kind: 'refused', reason: 'unknown' }],
    ['POST', `/v2/${REPO}/blobs/uploads/?mount=${DIGEST}&from=../x`, { kind: 'refused', reason: 'unknown' }],
  ])('%s %s', (method, uri, expected) => {
    expect(readRegistryRequest(method, uri)).toEqual(expected);
  });
});

describe('mayAccess: a registry run token of organization acme', () => {
  const scope = { orgSlug: 'acme', sharedOrgSlug: 'shared' };
  it.each([
    ['orgs/acme/docker.io/library/alpine', 'pull', true],
    ['orgs/acme/tools/linter', 'pull', true],
    ['orgs/shared/docker.io/library/alpine', 'pull', true],
    ['global/base/debian', 'pull', true],
    ['orgs/other/docker.io/library/alpine', 'pull', false],
    ['orgsx/acme/a/b', 'pull', false],
    ['library/alpine', 'pull', false],
    ['orgs/acme/docker.io/library/alpine', 'push', true],
    ['orgs/acme/localhost/tool', 'push', true],
    ['orgs/acme/tools/linter', 'push', false],
    ['orgs/acme/docker.io', 'push', false],
    ['orgs/shared/docker.io/library/alpine', 'push', false],
    ['orgs/other/docker.io/library/alpine', 'push', false],
    ['global/base/debian', 'push', false],
  ] as const)('%s %s -> %s', (repository, action, allowed) => {
    expect(mayAccess(scope, { repository, action })).toBe(allowed);
  });

  it('pulls nothing of a shared namespace when there is no shared organization', () => {
    expect(mayAccess({ orgSlug: 'acme', sharedOrgSlug: undefined }, { repository: 'orgs/shared/x/y', action: 'pull' })).toBe(false);
  });

  it('names namespaces', () => {
    expect([namespaceOf('orgs/acme/x'), namespaceOf('global/x'), namespaceOf('orgs/acme'), namespaceOf('x/y')]).toEqual([
      'orgs/acme',
      'global',
      undefined,
      undefined,
    ]);
  });
});
