import { z } from 'zod';

/** Who made, changed and soft-deleted a row, and when (ISO 8601); `deleted_*` are null on a live row. */
export const stamps = {
  created_at: z.string(),
  updated_at: z.string(),
  created_by: z.string().nullable(),
  updated_by: z.string().nullable(),
  deleted_at: z.string().nullable(),
  deleted_by: z.string().nullable(),
};
