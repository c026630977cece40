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
