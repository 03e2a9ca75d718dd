/**
 * The one redaction of every value that leaves the server: views (`GET /api/agents/{id}`), errors, readiness,
 * log lines, spans and webhook payloads. Three rules, all applied wherever text or a value goes out:
 *
 * - by name: a value under a name that looks secret (`OPENAI_API_KEY`, `smtpPass`, `x-api-key`, `passphrase`,
 *   `Authorization`, `session_id`…: {@link isSecretName}) is replaced whole;
 * - by shape, in any text: a URL's password (`postgres://user:pw@host`), a query parameter with a secret name
 *   (`?api_key=…`), `Bearer …`, `NAME=value` / `"name": "value"` pairs with a secret name, `--api-key X` and
 *   `--token=X` arguments, PEM private keys;
 * - by value: the secret values the server knows (its token, its environment's secret settings, every agent's
 *   `secrets` and secret-looking settings, MCP servers' env and header secrets), registered with
 *   {@link registerSecretValues}, and any values a caller adds.
 *
 * Bounded: text beyond {@link MAX_REDACTED_TEXT} characters is cut before it is read, values deeper than
 * {@link MAX_DEPTH} or beyond {@link MAX_NODES} nodes are replaced whole, and every pattern is linear (each
 * repetition bounded), so a hostile value cannot stall the server.
 */

/** What every redacted value (or the redacted part of a text) is replaced by. */
export const REDACTED = '[redacted]';

/** Known secret values shorter than this are not searched for in text: they would match ordinary words. */
export const MIN_SECRET_LENGTH = 6;

/** Longest text read; beyond, it is cut (with a marker) before redaction. */
export const MAX_REDACTED_TEXT = 1024 * 1024;

/** Deepest value walked; deeper values are replaced whole. */
const MAX_DEPTH = 12;

/** Most nodes (objects, arrays, values) walked in one value; the rest are replaced whole. */
const MAX_NODES = 20_000;

/** A word (of a name split at `_`, `-`, `.`, spaces and camel case) ending so is secret: `apikey`, `smtppass`. */
const SECRET_ENDINGS = [
  'key',
  // Not `keys` alone: a list of field names (`unrecognized_keys` in a 400's details) is not a secret.
  'apikeys',
  'accesskeys',
  'privatekeys',
  'secretkeys',
  'secret',
  'secrets',
  'token',
  'pass',
  'passwd',
  'password',
  'passphrase',
  'pwd',
  'auth',
  'authorization',
  'authentication',
  'credential',
  'credentials',
  'creds',
  'cookie',
  'cookies',
  'signature',
  'salt',
  'jwt',
  'session',
  'sessionid',
  'mnemonic',
];

/**
 * Words secret on their own (too short, or too common as endings). Not `private` alone: `private_key` is secret by
 * its `key`, while `WEBHOOK_PRIVATE_TARGETS` lists addresses (`127.0.0.1`), which must stay readable in every log.
 */
const SECRET_WORDS = new Set(['pin', 'sig', 'otp', 'bearer', 'dsn', 'pw']);

/** Every secret name holds one of these (a quick refusal of most names before they are split). */
const SECRET_STEM =
  /key|secret|token|pass|pwd|auth|cred|cookie|signature|salt|jwt|session|mnemonic|pin|sig|otp|bearer|dsn|pw/i;

/**
 * Whether a name (a setting, a header, a field, a query parameter, a flag) looks secret, whatever its case and
 * style: `SMTP_PASS`, `smtpPass`, `smtp-pass`, `PASSPHRASE`, `x-api-key`, `Authorization`, `sessionToken`,
 * `private_key`, `--api-key`. `MAX_TOKENS`, `author`, `keyword` and `tokenizer` are not.
 */
export function isSecretName(name: string): boolean {
  if (name.length === 0 || name.length > 256 || !SECRET_STEM.test(name)) return false;
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  const secretWord = (word: string) =>
    word.length > 0 &&
    (SECRET_WORDS.has(word) || SECRET_ENDINGS.some((ending) => word.endsWith(ending)));
  // The words joined too: `API_KEYS` is `apikeys`.
  return words.some(secretWord) || secretWord(words.join(''));
}

/**
 * Whether a value found under a secret-looking name is worth searching for in text: not a plain word or flag
 * (`postgres`, `disabled`, `production` under `SESSION_STORE` would otherwise vanish from every log line).
 * Values a character declares as `secrets` are searched for whatever they look like.
 */
export function looksLikeSecretValue(value: string): boolean {
  const text = value.trim();
  if (text.length < MIN_SECRET_LENGTH) return false;
  return !/^[A-Za-z]{1,15}$/.test(text) && !/^(true|false|null|undefined)$/i.test(text);
}

// ---- known values ------------------------------------------------------------------------------------------

/**
 * Most distinct values registered at once: every text is searched for each, so the list is bounded (100 agents of
 * 64 KiB characters could otherwise make every log line search for hundreds of thousands). Beyond it, a value is
 * still found by its name and shape, not by value.
 */
const MAX_REGISTERED = 10_000;

const registered = new Map<string, number>();
let registeredList: string[] = [];

function refreshRegistered(): void {
  registeredList = [...registered.keys()].sort((a, b) => b.length - a.length);
}

/**
 * Adds secret values every redaction of this process removes (a server's token, its agents' secrets…), until the
 * returned function is called (a server's stop). Values shorter than {@link MIN_SECRET_LENGTH} are ignored.
 */
export function registerSecretValues(values: Iterable<unknown>): () => void {
  const added: string[] = [];
  for (const value of values) {
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || text.trim().length < MIN_SECRET_LENGTH) continue;
    const secret = text.trim();
    if (!registered.has(secret) && registered.size >= MAX_REGISTERED) continue;
    registered.set(secret, (registered.get(secret) ?? 0) + 1);
    added.push(secret);
  }
  if (added.length > 0) refreshRegistered();
  let done = false;
  return () => {
    if (done) return;
    done = true;
    for (const secret of added) {
      const count = (registered.get(secret) ?? 1) - 1;
      if (count <= 0) registered.delete(secret);
      else registered.set(secret, count);
    }
    if (added.length > 0) refreshRegistered();
  };
}

function removeValues(text: string, secrets: readonly string[]): string {
  let clean = text;
  for (const list of [secrets, registeredList]) {
    for (const secret of list) {
      if (secret.length >= MIN_SECRET_LENGTH && clean.includes(secret)) {
        clean = clean.split(secret).join(REDACTED);
      }
    }
  }
  return clean;
}

// ---- shapes ------------------------------------------------------------------------------------------------

/** `scheme://user:password@` (the password part). Every repetition bounded: linear in the text. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]{0,30}:\/\/)([^\s:@/?#]{0,256}):([^\s@/?#]{1,1024})@/gi;

/** `?name=value` / `&name=value` / `;name=value`. */
const QUERY_PARAMETER = /([?&;])([^=&#\s?;]{1,64})=([^&#\s;]*)/g;

/** `Bearer xxx` (any case) and `Basic xxx`. */
const AUTH_SCHEME = /\b(Bearer|bearer|BEARER|Basic)(\s{1,8})([A-Za-z0-9\-._~+/]{4,}=*)/g;

/** `name = "value with spaces"`, `"name": "value"`, `'name': 'value'`. */
const QUOTED_PAIR =
  /(?<![A-Za-z0-9_.-])(["']?)([A-Za-z_][A-Za-z0-9_.-]{0,63})\1(\s{0,3}[=:]\s{0,3})(?:"((?:[^"\\\n]|\\.){0,4096})"|'((?:[^'\\\n]|\\.){0,4096})')/g;

/** `NAME=value`, `name: value`, `--token=X`, `"API_TOKEN": 123` (a value up to a space, quote or separator). */
const PLAIN_PAIR =
  /(?<![A-Za-z0-9_.-])(["']?)(-{0,2}[A-Za-z_][A-Za-z0-9_.-]{0,63})\1(\s{0,3}[=:]\s{0,3})([^\s"'&,;=(){}<>[\]]+)/g;

/** `--api-key X`, `-token X`: a flag and the argument after it (which does not start with `-`). */
const FLAG_ARGUMENT =
  /(?<![A-Za-z0-9_.-])(-{1,2}[A-Za-z][A-Za-z0-9_-]{0,63})(\s{1,3})([^\s"'&,;=(){}<>[\]-][^\s"'&,;(){}<>[\]]*)/g;

/** A PEM private key, whole. */
const PRIVATE_KEY =
  /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----[\s\S]{0,16384}?-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----/g;

function redactShapes(text: string): string {
  let clean = text;
  if (clean.includes('PRIVATE KEY-----')) clean = clean.replace(PRIVATE_KEY, REDACTED);
  // Each rule runs only on text that holds what it needs (most log fields hold none): `://` and `@`, a scheme's
  // name, `?`/`&`/`;`, `=`/`:`, `-`.
  if (clean.includes('://') && clean.includes('@')) {
    clean = clean.replace(
      URL_USERINFO,
      (_match, scheme: string, user: string) => `${scheme}${user}:${REDACTED}@`,
    );
  }
  if (/earer|EARER|Basic/.test(clean)) clean = clean.replace(AUTH_SCHEME, `$1$2${REDACTED}`);
  if (/[?&;]/.test(clean) && clean.includes('=')) {
    clean = clean.replace(QUERY_PARAMETER, (match, mark: string, name: string, value: string) =>
      value !== '' && isSecretName(safeDecode(name)) ? `${mark}${name}=${REDACTED}` : match,
    );
  }
  if (!/[=:]/.test(clean)) return clean.includes('-') ? redactFlags(clean) : clean;
  clean = clean.replace(
    QUOTED_PAIR,
    (match, quote: string, name: string, separator: string, double?: string) =>
      isSecretName(name)
        ? `${quote}${name}${quote}${separator}${double !== undefined ? `"${REDACTED}"` : `'${REDACTED}'`}`
        : match,
  );
  clean = clean.replace(
    PLAIN_PAIR,
    (match, quote: string, name: string, separator: string, value: string, at: number) =>
      isSecretName(name) && !isSchemeBeforeRedacted(clean, value, at + match.length)
        ? `${quote}${name}${quote}${separator}${REDACTED}`
        : match,
  );
  return clean.includes('-') ? redactFlags(clean) : clean;
}

function redactFlags(text: string): string {
  return text.replace(FLAG_ARGUMENT, (match, flag: string, space: string) =>
    isSecretName(flag) ? `${flag}${space}${REDACTED}` : match,
  );
}

/** `Authorization: Bearer [redacted]`: the scheme stays, its credentials are already gone. */
function isSchemeBeforeRedacted(text: string, value: string, end: number): boolean {
  return /^(Bearer|Basic)$/i.test(value) && text.startsWith(` ${REDACTED}`, end);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// ---- text and values ---------------------------------------------------------------------------------------

/**
 * `text` with every secret removed: the known values (registered, and `secrets`), URL passwords, secret query
 * parameters, `Bearer` tokens, secret `NAME=value` pairs and flag arguments. Text beyond
 * {@link MAX_REDACTED_TEXT} characters is cut first.
 */
export function redactText(text: string, secrets: readonly string[] = []): string {
  let clean = text;
  if (clean.length > MAX_REDACTED_TEXT) {
    clean = `${clean.slice(0, MAX_REDACTED_TEXT)}…[cut: ${text.length - MAX_REDACTED_TEXT} more characters]`;
  }
  return redactShapes(removeValues(clean, secrets));
}

interface Walk {
  secrets: readonly string[];
  nodes: number;
  /** The objects being walked (a cycle is replaced, not followed). */
  path: Set<object>;
}

/** A flag whose next argument is its value: `--api-key`, `-token`. */
function isSecretFlag(value: unknown): boolean {
  return (
    typeof value === 'string' &&
    /^-{1,2}[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(value) &&
    isSecretName(value)
  );
}

function walk(value: unknown, state: Walk, depth: number): unknown {
  state.nodes += 1;
  if (typeof value === 'string') {
    // A value equal to a secret is replaced however short it is (a PIN).
    return state.secrets.includes(value) ? REDACTED : redactText(value, state.secrets);
  }
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH || state.nodes > MAX_NODES || state.path.has(value)) return REDACTED;
  state.path.add(value);
  try {
    return walkObject(value, state, depth);
  } finally {
    state.path.delete(value);
  }
}

function walkObject(value: object, state: Walk, depth: number): unknown {
  if (Array.isArray(value)) {
    // `args: ["--api-key", "X"]`: the argument after a secret flag is its value.
    return value.map((item, index) =>
      index > 0 && isSecretFlag(value[index - 1]) && typeof item !== 'boolean'
        ? REDACTED
        : walk(item, state, depth + 1),
    );
  }
  if (value instanceof Error) {
    return walk(
      {
        type: value.name,
        message: value.message,
        ...(value.stack ? { stack: value.stack } : {}),
        ...(value.cause !== undefined ? { cause: value.cause } : {}),
        ...Object.fromEntries(Object.entries(value)),
      },
      state,
      depth,
    );
  }
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    if (value instanceof Date) return value;
    return walk((toJSON as () => unknown).call(value), state, depth + 1);
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      isSecretName(key) && item !== null && item !== undefined && typeof item !== 'boolean'
        ? REDACTED
        : walk(item, state, depth + 1),
    ]),
  );
}

/**
 * A copy of `value` (plain objects, arrays, text; errors as `{type, message, stack…}`; a `toJSON` is followed)
 * with every secret removed: values under secret names replaced whole (booleans and null kept: `auth: false`
 * says nothing), the argument after a secret flag in a list, and every text as {@link redactText} cleans it.
 * Deeper than twelve levels, beyond 20,000 nodes, or a cycle: the rest is replaced whole.
 */
export function redactValue<T>(value: T, secrets: readonly string[] = []): T {
  return walk(value, { secrets, nodes: 0, path: new Set() }, 0) as T;
}
