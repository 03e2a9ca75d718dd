import { Buffer } from 'buffer';

// @parley/tee decodes hex and base64 with Node's Buffer; the browser gets the `buffer` package's, which
// implements the same API. Imported only by the lazily loaded TEE checks, so pages without a TEE never load it.
globalThis.Buffer ??= Buffer as unknown as typeof globalThis.Buffer;
