import { problem } from '../../../shared/api/problem.js';
import { problems } from '../../../shared/api/problems.js';
import { secretProblems } from '../secrets/secret-problems.js';
import { SecretBackendError, SecretReferenceError, type SecretResolver } from '../secrets/secret-resolver.js';

/**
 * A provider's credential: a secret reference of the provider's organization, resolved through the
 * secrets module when saved (so a wrong reference is refused then) and at each use. The value is handed
 * to the provider's source and nowhere else: not stored here, not logged, not in any answer or record.
 */
export class Credentials {
  constructor(private readonly secrets: SecretResolver) {}

  /** On save: 422 on `credential_ref` when the reference resolves to nothing usable. */
  async check(orgId: string, reference: string): Promise<void> {
    try {
      await this.secrets.resolveReference(orgId, reference);
    } catch (error) {
      if (error instanceof SecretReferenceError) throw problems.validation([{ path: 'credential_ref', message: error.message }]);
      if (error instanceof SecretBackendError) throw secretProblems.backendUnavailable();
      throw error;
    }
  }

  /** At use: the value, or 502 `provider_request_failed` (`credential_unusable`) when it no longer resolves. */
  async resolve(orgId: string, reference: string | null): Promise<string | null> {
    if (reference === null) return null;
    try {
      return await this.secrets.resolveReference(orgId, reference);
    } catch (error) {
      if (error instanceof SecretReferenceError) {
        throw problem('provider_request_failed', `The provider's credential reference no longer resolves: ${error.message}.`, {
          reason: 'credential_unusable',
        });
      }
      if (error instanceof SecretBackendError) throw secretProblems.backendUnavailable();
      throw error;
    }
  }
}
