/** A development account of the embedded identity provider. */
export interface DevUser {
  readonly sub: string;
  readonly username: string;
  readonly email: string;
  readonly password: string;
  readonly realmRoles: readonly string[];
  readonly groups: readonly string[];
}

function devUser(sub: string, role: string, groups: readonly string[]): DevUser {
  return Object.freeze({
    sub,
    username: role,
    email: `${role}@example.com`,
    password: `${role}-password`,
    realmRoles: Object.freeze([role]),
    groups: Object.freeze(groups),
  });
}

/**
 * One account per platform role. Subjects are fixed UUIDs (Keycloak's shape) so that user rows and
 * audit entries written by one test run line up with the next. Groups are full paths, as Keycloak's
 * group-membership mapper emits them with "full path" on.
 */
export const DEV_USERS: readonly DevUser[] = Object.freeze([
  devUser('5d0c8a1e-0001-4000-8000-000000000001', 'admin', ['/platform-admins']),
  devUser('5d0c8a1e-0002-4000-8000-000000000002', 'operator', ['/network-ops', '/network-ops/emea']),
  devUser('5d0c8a1e-0003-4000-8000-000000000003', 'approver', ['/approvers']),
  devUser('5d0c8a1e-0004-4000-8000-000000000004', 'auditor', ['/auditors']),
  devUser('5d0c8a1e-0005-4000-8000-000000000005', 'viewer', ['/viewers']),
]);

export function findDevUserBySub(sub: string): DevUser | undefined {
  return DEV_USERS.find((user) => user.sub === sub);
}

/** The account for a username and password, or undefined when either is wrong. */
export function authenticateDevUser(username: string, password: string): DevUser | undefined {
  const user = DEV_USERS.find((candidate) => candidate.username === username);
  return user !== undefined && user.password === password ? user : undefined;
}
