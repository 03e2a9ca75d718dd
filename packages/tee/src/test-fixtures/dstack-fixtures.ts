import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { TeeEvent } from '../event-log/tee-event';

/** dstack's own verifier fixtures, from ../../test/fixtures/dstack (source and licence in its README). Tests only. */
const folder = fileURLToPath(new URL('../../test/fixtures/dstack/', import.meta.url));

/** A dstack GetQuote response: the quote bytes and the event log as dstack serves it. */
export interface DstackGetQuote {
  quote: Buffer;
  eventLog: TeeEvent[];
}

function load(name: string): DstackGetQuote {
  const raw = JSON.parse(readFileSync(`${folder}${name}`, 'utf8')) as {
    quote: string;
    event_log: string;
  };
  return {
    quote: Buffer.from(raw.quote, 'hex'),
    eventLog: JSON.parse(raw.event_log) as TeeEvent[],
  };
}

/** An older dstack (runtime events carry their digests) and dstack 0.6 (runtime digests left empty). */
export const DSTACK = {
  quoteReport: load('quote-report.json'),
  lite06: load('tdx-lite-getquote.json'),
};
