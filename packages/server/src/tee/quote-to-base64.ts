import { ParleyError } from '@parley/core';

/** dstack answers quotes in hex; SPEC.md serves them in base64. A non-hex quote is dstack's fault: INTERNAL. */
export function quoteToBase64(hexQuote: string): string {
  const digits = hexQuote.replace(/^0x/i, '');
  if (digits.length === 0 || digits.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(digits)) {
    throw new ParleyError('INTERNAL', 'dstack returned a quote that is not hex');
  }
  return Buffer.from(digits, 'hex').toString('base64');
}
