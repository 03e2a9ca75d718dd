import * as asn1js from 'asn1js';
import { collateralError } from './collateral-error';

/** A decoded DER element. */
export type DerElement = asn1js.AsnType;

/** Decodes one DER element that must span all of `bytes`; anything else is a COLLATERAL_FORMAT failure. */
export function decodeDer(bytes: Uint8Array, what: string): DerElement {
  let decoded: ReturnType<typeof asn1js.fromBER>;
  try {
    // asn1js throws (RangeError, TypeError) on some corrupt lengths instead of reporting an error.
    decoded = asn1js.fromBER(bytes);
  } catch {
    throw collateralError('COLLATERAL_FORMAT', `${what} is not valid DER`);
  }
  const { result, offset } = decoded;
  if (offset !== bytes.length || result.error) {
    throw collateralError('COLLATERAL_FORMAT', `${what} is not valid DER`);
  }
  return result;
}

/** The children of a SEQUENCE (or other constructed element); empty for a primitive one. */
export function childrenOf(element: DerElement | undefined): DerElement[] {
  const value = (element as asn1js.Constructed | undefined)?.valueBlock.value;
  return Array.isArray(value) ? value : [];
}

/** The content bytes of a primitive element (OCTET STRING, INTEGER, BIT STRING without its pad byte). */
export function contentOf(element: DerElement | undefined): Uint8Array {
  const block = (element as asn1js.OctetString | undefined)?.valueBlock as
    { valueHexView?: Uint8Array } | undefined;
  return block?.valueHexView ?? new Uint8Array();
}

/** The whole DER encoding of an element as it was read. */
export function encodingOf(element: DerElement): Uint8Array {
  return new Uint8Array(element.valueBeforeDecodeView);
}

/** An INTEGER (a serial number) as lower-case hex without leading zeros. */
export function integerHex(element: DerElement | undefined): string {
  return Buffer.from(contentOf(element))
    .toString('hex')
    .replace(/^(00)+(?=.)/, '');
}

/** The dotted OID of an OBJECT IDENTIFIER, or '' for anything else. */
export function oidOf(element: DerElement | undefined): string {
  return element instanceof asn1js.ObjectIdentifier ? element.valueBlock.toString() : '';
}

/** A UTCTime or GeneralizedTime as a valid Date, or undefined (also for a corrupt time). */
export function timeOf(element: DerElement | undefined): Date | undefined {
  if (!(element instanceof asn1js.UTCTime || element instanceof asn1js.GeneralizedTime)) {
    return undefined;
  }
  try {
    const date = element.toDate();
    return Number.isNaN(date.getTime()) ? undefined : date;
  } catch {
    return undefined;
  }
}

/** Whether an element is the context-specific tag `[number]`. */
export function isContextTag(element: DerElement | undefined, number: number): boolean {
  return element?.idBlock.tagClass === 3 && element.idBlock.tagNumber === number;
}
