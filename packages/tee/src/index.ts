/**
 * @module @parley/tee
 * What a third party installs to check a Parley server running in a TEE: a client for the TEE endpoints, an
 * offline Intel TDX quote verifier, the attestation digests Parley binds, and key derivation helpers.
 */
export * from './tee-client';

export * from './quote/parse-tdx-quote';
export { isQuoteFormatError } from './quote/quote-format-error';
export * from './quote/tdx-quote';
export { TDX_QUOTE } from './quote/tdx-quote-layout';
export type { QeReportField, Td15ReportField, TdReportField } from './quote/tdx-quote-layout';
export * from './quote/verify-quote';
export { collateralFromPcs, parseDcapQvlCollateral } from './collateral/parse-collateral';
export type { PcsCollateralInput } from './collateral/parse-collateral';
export * from './collateral/collateral';
export * from './collateral/tcb-evaluation';
export * from './collateral/verify-platform-tcb';
export * from './collateral/fetch-collateral';
export type { PlatformTcb } from './collateral/evaluate-tcb-info';
export type {
  QuoteFailure,
  QuoteVerification,
  VerifyQuoteOptions,
} from './quote/quote-verification';
export * from './event-log/replay-event-log';
export * from './event-log/dstack-app-info';
export * from './event-log/tee-event';
export * from './policy/check-measurements';
export * from './policy/measurement-policy';
export * from './roots/intel-sgx-root-ca';
export * from './roots/simulator-root-ca';

export * from './attestation/canonical-json';
export * from './attestation/attestation-digest';
export * from './attestation/verify-agent-attestation';

export * from './receipts/receipt-digest';
export * from './receipts/verify-receipt';
export * from './receipts/verify-receipt-chain';

export * from './keys/to-ecdsa-account';
export * from './keys/to-ed25519-keypair';
export * from './keys/derive-key-response';

export type {
  DeriveKeyAttestationData,
  RemoteAttestationMessage,
  RemoteAttestationQuote,
  TeeAgent,
  TeeAgentsResponse,
  TeeStatusResponse,
} from '@parley/core';
