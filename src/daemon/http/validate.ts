import type { z } from 'zod';
import { problems, type RequestPart } from '../../shared/api/problems.js';

/** Parses `input` (the request's `part`) with `schema`, or throws 422 `validation_failed` listing every issue with its JSON path. */
export function validate<S extends z.ZodType>(schema: S, input: unknown, part: RequestPart = 'body'): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw problems.validation(
    result.error.issues.map((issue) => ({
      path: issue.path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
        .join('')
        .replace(/^\./, ''),
      message: issue.message,
    })),
    part,
  );
}
