import { z } from 'zod';

/** Wire schemas of `/health` and `/ready`. */
export const healthAnswer = z.object({ status: z.literal('ok') });
export const readyAnswer = z.object({ status: z.literal('ready'), database: z.enum(['postgres', 'pglite']) });
