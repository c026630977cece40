import { DevBrowser, readForm, type BrowserPage } from './browser.js';

export interface Credentials {
  readonly username: string;
  readonly password: string;
}

/** The id of the login form on the provider's interaction page. */
export const LOGIN_FORM_ID = 'login';

/**
 * From a page inside the provider, signs in if the login form is shown, then follows the provider's
 * redirects (consent is granted without a page). Answers the last page: a redirect to the client,
 * the device flow's success page, or the login form again when the password was refused.
 */
export async function signInFrom(browser: DevBrowser, page: BrowserPage, credentials: Credentials): Promise<BrowserPage> {
  const shown = await browser.follow(page);
  if (readForm(shown, LOGIN_FORM_ID) === undefined) return shown;
  const answer = await browser.submit(shown, LOGIN_FORM_ID, { username: credentials.username, password: credentials.password });
  return browser.follow(answer);
}

/**
 * Acts as the user of an authorization code request: opens the authorization URL, signs in, and
 * answers the redirect to the client's redirect_uri (code and state in its query), unvisited; or
 * undefined when the sign-in was refused.
 */
export async function authorizeInBrowser(
  authorizationUrl: string,
  credentials: Credentials,
  browser = new DevBrowser(),
): Promise<URL | undefined> {
  const last = await signInFrom(browser, await browser.get(authorizationUrl), credentials);
  return last.location === undefined ? undefined : new URL(last.location);
}

/**
 * Acts as the user of a device authorization: opens verification_uri, enters the user code,
 * confirms, signs in. Answers true when the provider showed its success page; the device's token
 * poll then succeeds.
 */
export async function approveDeviceCode(
  verificationUri: string,
  userCode: string,
  credentials: Credentials,
  browser = new DevBrowser(),
): Promise<boolean> {
  const input = await browser.get(verificationUri);
  const confirm = await browser.submit(input, 'op.deviceInputForm', { user_code: userCode });
  const confirmed = await browser.submit(confirm, 'op.deviceConfirmForm');
  const last = await signInFrom(browser, confirmed, credentials);
  return last.status === 200 && readForm(last, LOGIN_FORM_ID) === undefined;
}
