/**
 * @module @parley/tee
 * What a third party installs to check a Parley server running in a TEE: a client for the TEE endpoints, an
 * offline Intel TDX quote verifier, the attestation digests Parley binds, and key derivation helpers.
 */
export { createTeeClient } from './tee-client';
export type { TeeClient, TeeClientOptions } from './tee-client';

export { parseTdxQuote } from './quote/parse-tdx-quote';
export { isQuoteFormatError } from './quote/quote-format-error';
export type { QeReport, TdxCertificationData, TdxQuote, TdxQuoteHeader } from './quote/tdx-quote';
export { TDX_QUOTE } from './quote/tdx-quote-layout';
export type { QeReportField, Td15ReportField, TdReportField } from './quote/tdx-quote-layout';
export { DEFAULT_TCB_STATUSES, verifyQuote } from './quote/verify-quote';
export { collateralFromPcs, parseDcapQvlCollateral } from './collateral/parse-collateral';
export type { PcsCollateralInput } from './collateral/parse-collateral';
export type { SignedCollateral, TdxCollateral } from './collateral/collateral';
export { TCB_STATUSES } from './collateral/tcb-evaluation';
export type { TcbEvaluation, TcbStatus } from './collateral/tcb-evaluation';
export { verifyPlatformTcb } from './collateral/verify-platform-tcb';
export {
  createCollateralCache,
  fetchCollateral,
  fetchCollateralForQuote,
} from './collateral/fetch-collateral';
export type { CollateralCache, FetchCollateralOptions } from './collateral/fetch-collateral';
export type { PlatformTcbVerification } from './collateral/verify-platform-tcb';
export type { PlatformTcb } from './collateral/evaluate-tcb-info';
export type {
  QuoteFailure,
  QuoteVerification,
  VerifyQuoteOptions,
} from './quote/quote-verification';
export {
  replayEventLog,
  dstackEventDigest,
  dstackEventPreimage,
  extendRegister,
} from './event-log/replay-event-log';
export type { EventLogReplay, ReplayedEvent } from './event-log/replay-event-log';
export { readDstackAppInfo } from './event-log/dstack-app-info';
export type { DstackAppInfo } from './event-log/dstack-app-info';
export { DSTACK_RUNTIME_EVENT_TYPE } from './event-log/tee-event';
export type { TeeEvent } from './event-log/tee-event';
export { checkMeasurements } from './policy/check-measurements';
export type { MeasurementCheck } from './policy/check-measurements';
export type { BitRule, Expected, MeasurementPolicy } from './policy/measurement-policy';
export { INTEL_SGX_ROOT_CA_PEM } from './roots/intel-sgx-root-ca';
export { SIMULATOR_ROOT_CA_PEM } from './roots/simulator-root-ca';

export { canonicalJson } from './attestation/canonical-json';
export {
  AGENT_ATTESTATION_DOMAIN,
  AGENTS_ATTESTATION_DOMAIN,
  REPORT_DATA_LENGTH,
  agentReportData,
  agentsReportData,
  attestationDigest,
  toReportData,
} from './attestation/attestation-digest';
export type { AgentBinding } from './attestation/attestation-digest';
export {
  verifyAgentAttestation,
  verifyAgentsAttestation,
} from './attestation/verify-agent-attestation';
export type {
  VerifyAgentsOptions,
  VerifyAttestationOptions,
} from './attestation/verify-agent-attestation';

export { toEcdsaAccount } from './keys/to-ecdsa-account';
export type { EcdsaAccount } from './keys/to-ecdsa-account';
export { toEd25519Keypair } from './keys/to-ed25519-keypair';
export type { Ed25519Keypair } from './keys/to-ed25519-keypair';
export type { DeriveKeyResponse } from './keys/derive-key-response';

export type {
  DeriveKeyAttestationData,
  RemoteAttestationMessage,
  RemoteAttestationQuote,
  TeeAgent,
  TeeAgentsResponse,
  TeeStatusResponse,
} from '@parley/core';
