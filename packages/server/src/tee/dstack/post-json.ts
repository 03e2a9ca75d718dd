import { request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ParleyError } from '@parley/core';

/** Options of {@link postJson}. */
export interface PostJsonOptions {
  /** A unix socket path or an http(s) base URL. */
  endpoint: string;
  path: string;
  body: unknown;
  timeoutMs: number;
  /** Larger answers are refused, so a broken peer cannot exhaust memory. */
  maxResponseBytes: number;
}

/** Error codes that mean nothing answers at the endpoint. */
const UNREACHABLE = new Set([
  'ENOENT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EACCES',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EPIPE',
]);

function requestOptions(
  endpoint: string,
  path: string,
  length: number,
): RequestOptions & { url?: URL } {
  const headers = { 'content-type': 'application/json', 'content-length': String(length) };
  if (endpoint.startsWith('/')) {
    return { socketPath: endpoint, path, method: 'POST', headers, host: 'localhost', agent: false };
  }
  return { url: new URL(path, endpoint), method: 'POST', headers, agent: false };
}

function toParleyError(error: unknown, endpoint: string): ParleyError {
  if (ParleyError.isInstance(error)) return error;
  const { code, name } = error as NodeJS.ErrnoException;
  if (name === 'AbortError' || name === 'TimeoutError') {
    return new ParleyError('UNAVAILABLE', `dstack at ${endpoint} did not answer in time`, {
      cause: error,
    });
  }
  if (code && UNREACHABLE.has(code)) {
    const what = code === 'ENOENT' ? 'socket does not exist' : `cannot be reached (${code})`;
    return new ParleyError('UNAVAILABLE', `dstack at ${endpoint}: ${what}`, { cause: error });
  }
  return new ParleyError('UNAVAILABLE', `dstack at ${endpoint} failed`, { cause: error });
}

/**
 * POSTs JSON to an HTTP endpoint or over a unix socket (the dstack guest API speaks HTTP/1.1 on
 * `/var/run/dstack.sock`) and resolves with the parsed JSON answer.
 *
 * @throws ParleyError `UNAVAILABLE` when nothing answers in time, `INTERNAL` when the answer is not JSON,
 *   too large, or an HTTP error.
 */
export function postJson(options: PostJsonOptions): Promise<unknown> {
  const payload = Buffer.from(JSON.stringify(options.body));
  const { url, ...init } = requestOptions(options.endpoint, options.path, payload.length);
  const signal = AbortSignal.timeout(options.timeoutMs);
  return new Promise((resolve, reject) => {
    const onResponse = (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxResponseBytes) {
          response.destroy(
            new ParleyError('INTERNAL', `dstack answer exceeds ${options.maxResponseBytes} bytes`),
          );
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', (error) => reject(toParleyError(error, options.endpoint)));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const status = response.statusCode ?? 0;
        if (status < 200 || status > 299) {
          reject(
            new ParleyError(
              'INTERNAL',
              `dstack ${options.path} answered HTTP ${status}: ${text.slice(0, 200)}`,
            ),
          );
          return;
        }
        try {
          resolve(JSON.parse(text));
        } catch (error) {
          reject(
            new ParleyError('INTERNAL', `dstack ${options.path} answered invalid JSON`, {
              cause: error,
            }),
          );
        }
      });
    };
    const request =
      url?.protocol === 'https:'
        ? httpsRequest(url, { ...init, signal }, onResponse)
        : url
          ? httpRequest(url, { ...init, signal }, onResponse)
          : httpRequest({ ...init, signal }, onResponse);
    request.on('error', (error) => reject(toParleyError(error, options.endpoint)));
    request.end(payload);
  });
}
