import type { Artifact } from '../../../shared/api/artifacts.js';
import type { RunEventsPage } from '../../../shared/api/run-events.js';
import { CliError } from '../../errors.js';
import type { ApiClient } from '../../http/client.js';
import { enc } from '../shared.js';

/** The events route's largest page (`MAX_EVENTS_PAGE`; not imported, which would load zod). */
const EVENTS_PAGE = 1000;

/**
 * A run's artifacts, oldest first. The catalogue has no list route: every stored artifact appends an
 * `artifact.created` event, so the run's events are read to their end (`next_after: null`) and each
 * such event becomes the artifact as the upload answered it (id, sizes, hash; its time the event's).
 */
export async function runArtifacts(client: ApiClient, runId: string): Promise<Artifact[]> {
  const artifacts: Artifact[] = [];
  for (let after = 0; ;) {
    const query = { after: String(after), limit: String(EVENTS_PAGE) };
    const page = (await client.request({ method: 'GET', path: `/runs/${enc(runId)}/events`, query })).body as RunEventsPage;
    for (const event of page.items) {
      if (event.type !== 'artifact.created') continue;
      const data = event.data as Omit<Artifact, 'id' | 'run_id' | 'attempt' | 'created_at'> & { artifact_id: string };
      artifacts.push({
        id: data.artifact_id,
        run_id: runId,
        name: data.name,
        step_id: data.step_id,
        content_type: data.content_type,
        size_bytes: data.size_bytes,
        sha256: data.sha256,
        attempt: event.attempt,
        created_at: event.ts,
      });
    }
    if (page.next_after === null) return artifacts;
    after = page.next_after;
  }
}

/** ARTIFACT of a run: its id, or its name (unique in the run); none is exit 3. */
export async function artifactOf(client: ApiClient, runId: string, ref: string): Promise<Artifact> {
  const artifacts = await runArtifacts(client, runId);
  const found = artifacts.find((a) => a.id === ref) ?? artifacts.find((a) => a.name === ref);
  if (found) return found;
  const names = artifacts.map((a) => a.name);
  throw new CliError('not_found', `run ${runId} has no artifact "${ref}"`, {
    hint: names.length === 0 ? 'it has no artifacts' : `its artifacts: ${names.join(', ')}`,
  });
}
