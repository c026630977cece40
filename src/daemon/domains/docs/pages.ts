/**
 * The documentation pages. Paths are relative so they keep working behind a proxy that serves the API
 * under a prefix; scripts live in assets (no inline script), so the pages run under a strict CSP.
 */
export const SWAGGER_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>svc API</title>
<link rel="stylesheet" href="docs?asset=swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs?asset=swagger-ui-bundle.js"></script>
<script src="docs?asset=swagger-ui-standalone-preset.js"></script>
<script src="docs?asset=init.js"></script>
</body>
</html>
`;

export const SWAGGER_INIT = `window.ui = SwaggerUIBundle({
  url: new URL('openapi.json', window.location.href).href,
  oauth2RedirectUrl: new URL('docs/oauth2-redirect', window.location.href).href,
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});
`;

export const OAUTH2_REDIRECT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>svc API: sign-in</title></head>
<body>
<script src="../docs?asset=oauth2-redirect.js"></script>
</body>
</html>
`;

export const REDOC_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>svc API reference</title>
</head>
<body>
<redoc spec-url="openapi.json"></redoc>
<script src="redoc?asset=redoc.standalone.js"></script>
</body>
</html>
`;

export const PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'";
