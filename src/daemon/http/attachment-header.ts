/** RFC 8187's attr-char leaves out what encodeURIComponent keeps: `'`, `(`, `)`, `*`, `!`. */
function extValue(name: string): string {
  return encodeURIComponent(name).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `Content-Disposition: attachment` for a file name anyone may have chosen (RFC 6266): `filename` is an
 * ASCII stand-in (anything else, quotes, backslashes and controls become `_`), and a name that is not
 * plain ASCII also goes as `filename*` in UTF-8, which browsers and curl prefer.
 */
export function attachmentHeader(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return ascii === fileName ? `attachment; filename="${ascii}"` : `attachment; filename="${ascii}"; filename*=UTF-8''${extValue(fileName)}`;
}
