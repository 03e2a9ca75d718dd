import { collateralError } from './collateral-error';
import { childrenOf, contentOf, decodeDer, oidOf } from './der';

/** Intel's SGX extension in PCK certificates and its members. */
export const SGX_EXTENSION_OID = '1.2.840.113741.1.13.1';
const PPID = `${SGX_EXTENSION_OID}.1`;
const TCB = `${SGX_EXTENSION_OID}.2`;
const PCE_ID = `${SGX_EXTENSION_OID}.3`;
const FMSPC = `${SGX_EXTENSION_OID}.4`;

/** The platform facts a PCK certificate carries. */
export interface SgxExtensions {
  /** Family-model-stepping-platform-customSKU, 6 bytes hex: selects the TCB info. */
  fmspc: string;
  /** 2 bytes hex. */
  pceId: string;
  /** The 16 SGX TCB component SVNs (`sgxtcbcomponents` are compared with these). */
  sgxTcbComponents: number[];
  pceSvn: number;
  /** The platform's Platform Provisioning ID (16 bytes hex; Intel encrypts nothing here, but may zero it). */
  ppid: string;
}

function integer(bytes: Uint8Array): number {
  return bytes.reduce((value, byte) => value * 256 + byte, 0);
}

/**
 * Reads FMSPC, PCE id and the TCB of a PCK certificate's SGX extension (Intel "SGX PCK Certificate and
 * Certificate Revocation List Profile Specification").
 *
 * @throws ParleyError `COLLATERAL_FORMAT` when the extension or one of those members is missing.
 */
export function parseSgxExtensions(extension: Uint8Array | undefined): SgxExtensions {
  const missing = (what: string) =>
    collateralError('COLLATERAL_FORMAT', `the PCK certificate has no SGX ${what}`);
  if (!extension) throw missing('extension');
  const members = new Map(
    childrenOf(decodeDer(extension, 'SGX extension')).map((member) => {
      const [oid, value] = childrenOf(member);
      return [oidOf(oid), value] as const;
    }),
  );
  const tcb = new Map(
    childrenOf(members.get(TCB)).map((member) => {
      const [oid, value] = childrenOf(member);
      return [oidOf(oid), integer(contentOf(value))] as const;
    }),
  );
  const components = Array.from({ length: 16 }, (_, index) => tcb.get(`${TCB}.${index + 1}`));
  const pceSvn = tcb.get(`${TCB}.17`);
  const fmspc = contentOf(members.get(FMSPC));
  const pceId = contentOf(members.get(PCE_ID));
  if (fmspc.length !== 6) throw missing('FMSPC');
  if (pceId.length !== 2) throw missing('PCE id');
  if (pceSvn === undefined || components.some((svn) => svn === undefined)) throw missing('TCB');
  return {
    fmspc: Buffer.from(fmspc).toString('hex'),
    pceId: Buffer.from(pceId).toString('hex'),
    sgxTcbComponents: components as number[],
    pceSvn,
    ppid: Buffer.from(contentOf(members.get(PPID))).toString('hex'),
  };
}
