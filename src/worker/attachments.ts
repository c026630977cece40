import type { AttachmentManifest } from '../shared/api/flow-attachments.js';
import type { FlowStep } from '../shared/flows/definition.js';

/** Whether a step's config or approval message has a `{{ attachments.… }}` template (other runs ask for none). */
export function namesAttachments(steps: readonly FlowStep[]): boolean {
  return steps.some((step) => ATTACHMENTS_TEMPLATE.test(JSON.stringify([step.config, step.approval?.message ?? null])));
}

const ATTACHMENTS_TEMPLATE = /\{\{\s*attachments\./;

/**
 * What templates see of the run's attachments (the set its committed version pinned, read once before the
 * first step): `attachments.count` and `attachments.items` (each `{path, sha256, size_bytes, content_type}`).
 * This worker runs no container, so it mounts nothing; a container worker would fetch each item's `url`.
 */
export function attachmentsContext(manifest: AttachmentManifest): Record<string, unknown> {
  const items = manifest.items.map(({ path, sha256, size_bytes, content_type }) => ({ path, sha256, size_bytes, content_type }));
  return { count: items.length, version: manifest.version, items };
}

/** The `log` event that records which contents the run resolved. */
export function manifestLine(manifest: AttachmentManifest): string {
  const listed = manifest.items.map((item) => `${item.path} sha256:${item.sha256}`).join(', ');
  return `attachments of version ${manifest.version}: ${manifest.items.length} file(s)${listed ? `: ${listed}` : ''}`.slice(0, 4000);
}
