/** A device named by its inventory provider: the provider id as it appears on the device, and the provider's own id for it. */
export interface ProviderRef {
  readonly provider_id: string;
  readonly external_id: string;
}

/**
 * The key a provider reference is looked up under: provider id and external id joined by NUL (which
 * neither can hold). One definition, because the device directory answers under it and the trigger body
 * rules look its answer up with it.
 */
export function providerRefKey(ref: ProviderRef): string {
  return `${ref.provider_id}\u0000${ref.external_id}`;
}

/**
 * The provider id the spec fixes: `<type>:<name>` for a provider of the default organization,
 * `<type>:<name>:<org_id>` for any other organization's. It is what imported rows carry.
 */
export function providerIdOf(type: string, name: string, orgId: string | null): string {
  return orgId === null ? `${type}:${name}` : `${type}:${name}:${orgId}`;
}

/** The parts of a provider id, or undefined when it has neither two nor three non-empty parts. */
export function parseProviderId(id: string): { type: string; name: string; orgId: string | null } | undefined {
  const parts = id.split(':');
  if (parts.length < 2 || parts.length > 3 || parts.some((part) => part.length === 0)) return undefined;
  return { type: parts[0]!, name: parts[1]!, orgId: parts[2]?.toLowerCase() ?? null };
}
