import { z } from 'zod';
import { pathId } from './id-schemas.js';

/**
 * Wire schemas of run artifacts: the worker's two uploads (`POST /internal/runs/{run_id}/artifacts/upload`,
 * a streamed body; `POST /internal/runs/{run_id}/artifacts`, a small text or JSON one in a JSON body) and
 * the users' downloads. docs/artifacts.md.
 */

/**
 * An artifact's name: a relative path of 1-255 characters (`report.txt`, `configs/r1.cfg`), the entry's
 * name in the run's zip. No empty, `.` or `..` segment, no backslash, no control character, no leading
 * drive letter (`C:`): a name is safe to unzip anywhere.
 */
export const artifactName = z
  .string()
  .min(1)
  .max(255)
  .refine((name) => !/[\u0000-\u001f\u007f\\]/.test(name), 'no control characters or backslashes')
  .refine(
    (name) => name.split('/').every((part) => part !== '' && part !== '.' && part !== '..'),
    'a relative path without empty, . or .. segments',
  )
  // `C:…` is an absolute path where the zip is unzipped on Windows, and yazl refuses it as an entry name:
  // stored, it would break the run's download-all (500) for good.
  .refine((name) => !/^[A-Za-z]:/.test(name), 'no drive letter');

const stepId = z.string().regex(/^[a-z][a-z0-9_]{0,63}$/);

/** A media type as `Content-Type` carries it (`text/plain; charset=utf-8`). */
export const artifactContentType = z
  .string()
  .max(255)
  .regex(/^[\w.+-]+\/[\w.+-]+(?:\s*;\s*[\w.+-]+=(?:[\w.+-]+|"[^"\r\n]*"))*$/, 'a media type such as text/plain');

/** The streamed upload's metadata, in its query (the body is the artifact's bytes; its type is `Content-Type`). */
export const artifactUploadQuery = z.object({ name: artifactName, step_id: stepId.optional() }).strict();

/** A small artifact in a JSON body: `content` is the text itself, or any other JSON value kept as JSON. */
export const createArtifactBody = z
  .object({
    name: artifactName,
    step_id: stepId.optional(),
    /** Default `text/plain; charset=utf-8` for a string, `application/json` otherwise. */
    content_type: artifactContentType.optional(),
    content: z.unknown().refine((value) => value !== undefined, 'required'),
  })
  .strict();

export const artifactPath = z.object({ run_id: pathId, artifact_id: pathId });

/** An artifact as stored (the upload's answer and the `artifact.created` event's fields). */
export const artifact = z.object({
  id: z.string(),
  run_id: z.string(),
  name: z.string(),
  step_id: z.string().nullable(),
  content_type: z.string(),
  size_bytes: z.number().int(),
  sha256: z.string(),
  attempt: z.number().int(),
  created_at: z.string(),
});
export type Artifact = z.infer<typeof artifact>;

/** A download's body: the artifact's bytes (or the run's zip), streamed. */
export const artifactBytes = z.string().describe('binary');
