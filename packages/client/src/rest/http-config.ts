/** What every REST and SSE call of one client shares. */
export interface HttpConfig {
  /** Base address without a trailing slash. */
  baseUrl: string;
  apiKey: Credential | undefined;
  fetch: typeof fetch;
  /** Default per-request timeout in milliseconds. */
  timeout: number;
}

/**
 * A credential: the server token or a person's access token, or a function that gives the current one (read
 * for each request and each socket connection, so a token renewed in the meantime is the one sent).
 */
export type Credential = string | (() => string | undefined);

/** The credential's current value. */
export function currentCredential(credential: Credential | undefined): string | undefined {
  return typeof credential === 'function' ? credential() : credential;
}
