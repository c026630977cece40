/** A personal access token's record, as the daemon sends it (src/shared/api/tokens.ts). */
export type { PatView as TokenRecord } from '../../../shared/api/tokens.js';
