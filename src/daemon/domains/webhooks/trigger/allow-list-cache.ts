import { compileAllowList, type SourceMatcher } from '../../../webhooks/source-allow-list.js';

const CAP = 10_000;

/** Compiled allow-lists by endpoint, recompiled when the endpoint row changes (its `updated_at`). */
export class AllowListCache {
  readonly #compiled = new Map<string, { readonly version: number; readonly matcher: SourceMatcher }>();

  allows(
    endpoint: { readonly id: string; readonly updated_at: Date; readonly allowed_source_ips_json: string[] | null },
    clientIp: string,
  ): boolean {
    if (endpoint.allowed_source_ips_json === null) return true;
    const version = new Date(endpoint.updated_at).getTime();
    let entry = this.#compiled.get(endpoint.id);
    if (!entry || entry.version !== version) {
      entry = { version, matcher: compileAllowList(endpoint.allowed_source_ips_json) };
      this.#compiled.set(endpoint.id, entry);
      if (this.#compiled.size > CAP) this.#compiled.delete(this.#compiled.keys().next().value!);
    }
    return entry.matcher.allows(clientIp);
  }

  delete(endpointId: string): void {
    this.#compiled.delete(endpointId);
  }
}
