export { DEV_AUTOMATION_CLIENT_SECRET, DEV_CLIENTS, DEV_SERVICE_ACCOUNT } from './clients.js';
export { startDevIdp } from './dev-idp.js';
export type { DevIdp, DevIdpOptions, MintOptions } from './types.js';
export { DEV_USERS, type DevUser } from './users.js';
export { DevBrowser, readForm, type BrowserPage } from './browser.js';
export { approveDeviceCode, authorizeInBrowser, signInFrom, LOGIN_FORM_ID, type Credentials } from './login-flows.js';
export { DEV_GROUP_CLAIM, DEV_ORG_MAPPINGS } from './org-mappings.js';
