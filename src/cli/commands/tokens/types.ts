/** The daemon's wire shapes of `/api-tokens` (src/shared/api/tokens.ts), under the names the commands use; types only, so zod is not loaded. */
export type { CreatedToken, PatView as TokenRecord, RevokedTokens, TokenList } from '../../../shared/api/tokens.js';
