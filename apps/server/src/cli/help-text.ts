/** `parley --help`. */
export function helpText(version: string): string {
  return `parley ${version}: the Parley agent server

Usage: parley [command] [--character PATH]...

Commands:
  start     start the server (the default); SIGTERM or SIGINT stops it gracefully
  test      run every loaded plugin's test suites against a live in-process server; exit 1 on a failure
  doctor    check the setup (port, host, database, Redis, TEE, plugins and routes, model) and print a fix for
            each problem; read-only, so it also runs beside a running server
  help      show this help

Options:
  -c, --character PATH   a character file (repeatable; added to those of CHARACTERS; with neither, the built-in
                         agent Eliza)
  -h, --help             show this help
  -v, --version          print the version

Settings come from the environment and from .env in the working directory (the environment wins):
PORT, HOST, DATA_DIR, DATABASE_URL, REDIS_URL, SERVER_AUTH_TOKEN, LOG_LEVEL, LOG_FORMAT, REQUEST_LOG_LEVEL, CHARACTERS,
PLUGINS, MODEL_PROVIDER, OPENAI_BASE_URL, OPENAI_API_KEY, MODEL, MODEL_TIMEOUT_MS, SYNC_TIMEOUT_MS,
ROUTE_TIMEOUT_MS, BODY_LIMIT, UPLOAD_LIMIT, SERVER_URL, TEE_MODE, TEE_VENDOR, WALLET_SECRET_SALT,
DSTACK_SIMULATOR_ENDPOINT. Each is described in .env.example and in the README's settings table;
running in production: docs/deploying.md and docs/operating.md.

Examples:
  parley --character ada.json
  PORT=8080 SERVER_AUTH_TOKEN=s3cret parley
  parley doctor
`;
}
