import { problem } from '../../../shared/api/problem.js';
import { isStoreFailure } from '../../storage/blob-store.js';

/**
 * Rethrows a failure of a repository's store while it takes new bytes (S3 not answering, its credentials
 * gone) as 503 `file_store_unavailable`, anything else as it is: for files and flow attachments alike.
 */
export function refusedByStore(error: unknown): never {
  if (isStoreFailure(error))
    throw problem('file_store_unavailable', "The repository's store cannot take the bytes now; nothing of them is kept.");
  throw error;
}
