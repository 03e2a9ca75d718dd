/** Where the interactive docs live; their assets are served beneath it. */
export const DOCS_PATH = '/api/docs';

/**
 * The HTML of the interactive docs: Swagger UI from the local `swagger-ui-dist` package, started by a script
 * file rather than an inline script, so a strict Content-Security-Policy (`script-src 'self'`) allows it.
 */
export function docsPageHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Parley API</title>
<link rel="icon" type="image/png" href="${DOCS_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;
}

/** The script that starts Swagger UI on the OpenAPI document. An entered API key is not persisted. */
export function docsInitScript(openApiPath: string): string {
  return `window.ui = SwaggerUIBundle({
  url: ${JSON.stringify(openApiPath)},
  dom_id: '#swagger-ui',
  deepLinking: true,
});
`;
}
