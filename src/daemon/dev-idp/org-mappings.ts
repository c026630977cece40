/**
 * The default organization's IdP mappings `svcd dev` seeds: each seeded account's group to the
 * organization role named like its realm role, and the automation client's to `operator`. Inside an
 * organization only its memberships count, so without them every account but `admin` would join as a
 * viewer and could not start a run or decide an approval until an administrator granted memberships.
 */
export const DEV_ORG_MAPPINGS: readonly { readonly group: string; readonly role: string }[] = Object.freeze([
  { group: '/platform-admins', role: 'admin' },
  { group: '/network-ops', role: 'operator' },
  { group: '/approvers', role: 'approver' },
  { group: '/auditors', role: 'auditor' },
  { group: '/viewers', role: 'viewer' },
  { group: '/automation', role: 'operator' },
]);

/** The claim the embedded provider puts groups in (Keycloak's group-membership mapper's usual name). */
export const DEV_GROUP_CLAIM = 'groups';
