/** An expected hex value, or a list of accepted ones (several releases, say). Case and `0x` are ignored. */
export type Expected = string | readonly string[];

/**
 * Bits that must be set or clear: `(actual & mask) === (value & mask)`, both hex of the field's length, in the
 * quote's byte order (little-endian: the first byte holds bits 0-7, so DEBUG, bit 0, is mask `0100000000000000`).
 */
export interface BitRule {
  mask: string;
  value: string;
}

/**
 * What code a relying party expects in the TD. Every field is optional: only what is given is checked.
 *
 * @example
 * const policy: MeasurementPolicy = {
 *   mrTd: '…', rtmr0: '…', rtmr1: '…', rtmr2: '…',
 *   tdAttributes: { mask: '0100000000000000', value: '0000000000000000' }, // DEBUG (bit 0, first byte) off
 *   eventLog: { composeHash: 'a1b2…' },                                   // the app, via RTMR3 replay
 * };
 */
export interface MeasurementPolicy {
  /** The TD's initial image (firmware): the same for every TD booted from that image. */
  mrTd?: Expected;
  /** Firmware configuration, kernel and command line, OS (meanings vary by stack; dstack: RTMR0-2). */
  rtmr0?: Expected;
  rtmr1?: Expected;
  rtmr2?: Expected;
  /** Runtime measurements; dstack extends the app's identity here. Prefer `eventLog`, which explains it. */
  rtmr3?: Expected;
  /** Set by the host at TD creation (dstack: may bind the compose hash or the KMS). */
  mrConfigId?: Expected;
  /** Owner-defined identities set at TD creation. */
  mrOwner?: Expected;
  mrOwnerConfig?: Expected;
  /** The TDX module's measurement (which Intel module release hosts the TD). */
  mrSeam?: Expected;
  /** TD 1.5: the service TD bound to this TD (all zero when none; a non-zero one needs `allowServiceTd`). */
  mrServiceTd?: Expected;
  /**
   * Exact value or bit rule for TDATTRIBUTES (bit 0 DEBUG, bit 28 SEPT_VE_DISABLE…). Beside it, `verifyQuote`
   * always requires SEPT_VE_DISABLE set and the reserved bits clear unless `allowUnsafeTdAttributes`.
   */
  tdAttributes?: string | BitRule;
  /** Exact value or bit rule for XFAM (CPU extended features the TD may use). */
  xfam?: string | BitRule;
  /**
   * Requires an event log that replays to the quote's RTMR3, with these dstack app facts (hex). Given as `{}`,
   * it only requires the replay to match.
   */
  eventLog?: {
    appId?: Expected;
    composeHash?: Expected;
    instanceId?: Expected;
    /** The dstack OS image hash (hex), logged by dstack 0.6 and later. */
    osImageHash?: Expected;
    /** The key provider as logged (JSON text, compared exactly), e.g. `{"name":"kms","id":"…"}`. */
    keyProvider?: string | readonly string[];
  };
}
