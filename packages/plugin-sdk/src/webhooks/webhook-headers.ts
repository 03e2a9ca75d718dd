/** Header of a Parley-signed webhook carrying `v1=<hex HMAC-SHA256 of "<timestamp>.<raw body>">`. */
export const PARLEY_SIGNATURE_HEADER = 'x-parley-signature';

/** Header of a Parley-signed webhook carrying the signing time in unix seconds. */
export const PARLEY_TIMESTAMP_HEADER = 'x-parley-timestamp';

/** Header in which GitHub sends `sha256=<hex HMAC-SHA256 of the raw body>`. */
export const GITHUB_SIGNATURE_HEADER = 'x-hub-signature-256';

/** Header in which GitHub sends the event kind (`push`, `issues`, …). */
export const GITHUB_EVENT_HEADER = 'x-github-event';
