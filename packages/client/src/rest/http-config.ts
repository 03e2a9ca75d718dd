/** What every REST and SSE call of one client shares. */
export interface HttpConfig {
  /** Base address without a trailing slash. */
  baseUrl: string;
  apiKey: string | undefined;
  fetch: typeof fetch;
  /** Default per-request timeout in milliseconds. */
  timeout: number;
}
