/** The provider's few HTML pages, kept bare: they are driven by tests and by developers, never styled. */

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function page(title: string, body: string): string {
  return (
    `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
    `<body><h1>${escapeHtml(title)}</h1>${body}</body></html>`
  );
}

export function loginPage(action: string, options: { username?: string; error?: string } = {}): string {
  const error = options.error === undefined ? '' : `<p role="alert" id="error">${escapeHtml(options.error)}</p>`;
  return page(
    'Sign in',
    `${error}<form id="login" method="post" action="${escapeHtml(action)}">` +
      `<label>Username <input name="username" autocomplete="username" value="${escapeHtml(options.username ?? '')}" autofocus></label>` +
      '<label>Password <input name="password" type="password" autocomplete="current-password"></label>' +
      '<button type="submit">Sign in</button></form>',
  );
}

/** Device flow: oidc-provider hands in its own form (with the xsrf field); only the button is ours. */
export function deviceInputPage(form: string, failed: boolean): string {
  const error = failed ? '<p role="alert" id="error">The code is not valid. Try again.</p>' : '';
  return page('Device sign-in', `${error}${form}<button type="submit" form="op.deviceInputForm">Continue</button>`);
}

export function deviceConfirmPage(form: string, clientId: string, userCode: string): string {
  return page(
    'Confirm device',
    `<p>${escapeHtml(clientId)} shows the code <code>${escapeHtml(userCode)}</code>.</p>${form}` +
      '<button type="submit" form="op.deviceConfirmForm">Continue</button>' +
      '<button type="submit" form="op.deviceConfirmForm" name="abort" value="yes">Abort</button>',
  );
}

export function messagePage(title: string, entries: Readonly<Record<string, unknown>> = {}): string {
  const lines = Object.entries(entries).map(([key, value]) => `<p><b>${escapeHtml(key)}</b>: ${escapeHtml(String(value))}</p>`);
  return page(title, lines.join(''));
}
