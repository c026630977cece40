/** A page as a browser saw it, before following any redirect. */
export interface BrowserPage {
  readonly url: string;
  readonly status: number;
  /** The absolute redirect target of a 3xx answer. */
  readonly location: string | undefined;
  readonly body: string;
}

interface Cookie {
  readonly name: string;
  readonly value: string;
  readonly path: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref.startsWith('#x') || ref.startsWith('#X')) return String.fromCodePoint(Number.parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(Number.parseInt(ref.slice(1), 10));
    return named[ref.toLowerCase()] ?? whole;
  });
}

function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'i').exec(tag);
  const raw = match?.[1] ?? match?.[2];
  return raw === undefined ? undefined : decodeEntities(raw);
}

/** RFC 6265 path-match: the same path, or a sub-path of it. */
function pathMatches(requestPath: string, cookiePath: string): boolean {
  return (
    requestPath === cookiePath ||
    (requestPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/'))
  );
}

/** The action and fields of the form with the given id (hidden inputs included), or undefined. */
export function readForm(page: BrowserPage, formId: string): { action: string; fields: Record<string, string> } | undefined {
  for (const match of page.body.matchAll(/<form\b[^>]*>[\s\S]*?<\/form>/gi)) {
    const open = /^<form\b[^>]*>/i.exec(match[0])?.[0] ?? '';
    if (attribute(open, 'id') !== formId) continue;
    const fields: Record<string, string> = {};
    for (const input of match[0].matchAll(/<input\b[^>]*>/gi)) {
      const name = attribute(input[0], 'name');
      if (name !== undefined) fields[name] = attribute(input[0], 'value') ?? '';
    }
    return { action: new URL(attribute(open, 'action') ?? page.url, page.url).href, fields };
  }
  return undefined;
}

/**
 * Just enough of a browser to drive the provider's HTML flows in tests: a cookie jar for one
 * host (paths honoured, since oidc-provider scopes interaction cookies to a path), no automatic
 * redirects, no scripts.
 */
export class DevBrowser {
  readonly #cookies = new Map<string, Cookie>();

  #store(setCookie: string, requestUrl: URL): void {
    const [pair = '', ...attributes] = setCookie.split(';').map((part) => part.trim());
    const eq = pair.indexOf('=');
    if (eq <= 0) return;
    const name = pair.slice(0, eq);
    let path = requestUrl.pathname.replace(/\/[^/]*$/, '') || '/';
    let expired = false;
    for (const attr of attributes) {
      const [key = '', value = ''] = attr.split('=', 2).map((part) => part.trim());
      if (key.toLowerCase() === 'path' && value.startsWith('/')) path = value;
      if (key.toLowerCase() === 'max-age' && Number(value) <= 0) expired = true;
      if (key.toLowerCase() === 'expires' && Date.parse(value) <= Date.now()) expired = true;
    }
    const key = `${path}\u0000${name}`;
    if (expired) this.#cookies.delete(key);
    else this.#cookies.set(key, { name, value: pair.slice(eq + 1), path });
  }

  #cookieHeader(url: URL): string | undefined {
    const matching = [...this.#cookies.values()]
      .filter((cookie) => pathMatches(url.pathname, cookie.path))
      .sort((a, b) => b.path.length - a.path.length);
    return matching.length === 0 ? undefined : matching.map((cookie) => `${cookie.name}=${cookie.value}`).join('; ');
  }

  async request(url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<BrowserPage> {
    const target = new URL(url);
    const headers: Record<string, string> = { accept: 'text/html' };
    const cookie = this.#cookieHeader(target);
    if (cookie !== undefined) headers.cookie = cookie;
    let body: string | undefined;
    if (init.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(target, {
      method: init.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      redirect: 'manual',
    });
    for (const setCookie of response.headers.getSetCookie()) this.#store(setCookie, target);
    const location = response.headers.get('location');
    return {
      url: target.href,
      status: response.status,
      location: location === null ? undefined : new URL(location, target).href,
      body: await response.text(),
    };
  }

  get(url: string): Promise<BrowserPage> {
    return this.request(url);
  }

  /** Submits the form with this id on the page, its own fields overridden by `fields`. */
  async submit(page: BrowserPage, formId: string, fields: Record<string, string> = {}): Promise<BrowserPage> {
    const form = readForm(page, formId);
    if (form === undefined) throw new Error(`no form #${formId} on ${page.url} (status ${page.status})`);
    return this.request(form.action, { form: { ...form.fields, ...fields } });
  }

  /** Follows redirects within the page's origin; a redirect elsewhere (a client's callback) is returned unvisited. */
  async follow(page: BrowserPage, maxHops = 10): Promise<BrowserPage> {
    let current = page;
    for (let hop = 0; hop < maxHops; hop += 1) {
      if (!REDIRECTS.has(current.status) || current.location === undefined) return current;
      if (new URL(current.location).origin !== new URL(page.url).origin) return current;
      current = await this.get(current.location);
    }
    throw new Error(`more than ${maxHops} redirects from ${page.url}`);
  }
}
