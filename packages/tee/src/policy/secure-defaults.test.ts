import { describe, expect, it } from 'vitest';
import { verifyQuote } from '../quote/verify-quote';
import { buildTestQuote, type TestQuoteInput } from '../test-fixtures/build-test-quote';
import { DSTACK } from '../test-fixtures/dstack-fixtures';
import { useTestPki } from '../test-fixtures/use-test-pki';
import { readDstackAppInfo } from '../event-log/dstack-app-info';
import { replayEventLog } from '../event-log/replay-event-log';

const pki = useTestPki();
const quoteOf = (input: Partial<TestQuoteInput> = {}) =>
  buildTestQuote({ pckKey: pki.pckKey, chain: [pki.pckPem, pki.caPem], ...input });
const verify = (quote: Buffer, options: Parameters<typeof verifyQuote>[1] = {}) =>
  verifyQuote(quote, { extraRoots: [pki.rootPem], ...options });

describe('secure TD defaults (as dcap-qvl requires)', () => {
  it('requires SEPT_VE_DISABLE and clear reserved attribute bits unless the caller relaxes it', () => {
    expect(verify(quoteOf())).toMatchObject({ valid: true });
    for (const tdAttributes of [
      '0000000000000000',
      '0200001000000000',
      '0000003000000000',
      '0000001001000000',
    ]) {
      expect(verify(quoteOf({ body: { tdAttributes } })), tdAttributes).toMatchObject({
        valid: false,
        failure: 'TD_ATTRIBUTES',
      });
    }
    expect(
      verify(quoteOf({ body: { tdAttributes: '0000000000000000' } }), {
        allowUnsafeTdAttributes: true,
      }),
    ).toMatchObject({ valid: true });
    // PKS, KL and PERFMON are features, not reserved bits.
    expect(verify(quoteOf({ body: { tdAttributes: '000000d000000080' } }))).toMatchObject({
      valid: true,
    });
  });

  it('refuses a TD 1.5 quote bound to a service TD unless allowed', () => {
    const bound = quoteOf({ version: 5, body: { mrServiceTd: 'ab'.repeat(48) } });
    expect(verify(bound)).toMatchObject({ valid: false, failure: 'SERVICE_TD' });
    expect(verify(bound, { allowServiceTd: true })).toMatchObject({ valid: true });
  });

  it('enforces minimum QE, PCE and TEE TCB SVNs', () => {
    const SVN = `030004${'00'.repeat(13)}`;
    const quote = quoteOf({ qeIsvSvn: 4, body: { teeTcbSvn: '03000400' } });
    expect(verify(quote, { minimumSvn: { qe: 4, pce: 11, teeTcbSvn: SVN } })).toMatchObject({
      valid: true,
    });
    for (const minimumSvn of [
      { qe: 5 },
      { pce: 12 },
      { teeTcbSvn: `030005${'00'.repeat(13)}` },
      { teeTcbSvn: '03' },
    ]) {
      expect(verify(quote, { minimumSvn })).toMatchObject({ valid: false, failure: 'MINIMUM_SVN' });
    }
  });
});

describe('measurement rules for every identity field', () => {
  it('checks mrSeam, mrOwner, mrOwnerConfig and mrServiceTd', () => {
    const body = {
      mrSeam: '11'.repeat(48),
      mrOwner: '22'.repeat(48),
      mrOwnerConfig: '33'.repeat(48),
    };
    const quote = quoteOf({ version: 5, body });
    const good = { ...body, mrServiceTd: '00'.repeat(48) };
    expect(verify(quote, { measurements: good })).toMatchObject({ valid: true });
    for (const field of Object.keys(good) as (keyof typeof good)[]) {
      expect(
        verify(quote, { measurements: { ...good, [field]: '44'.repeat(48) } }),
        field,
      ).toMatchObject({
        valid: false,
        failure: 'MEASUREMENT',
        message: expect.stringContaining(field) as string,
      });
    }
  });

  it('checks the dstack OS image hash and key provider against the replayed log', () => {
    const log = DSTACK.lite06.eventLog;
    const replay = replayEventLog(log);
    if (!replay.valid) throw new Error(replay.message);
    const app = readDstackAppInfo(replay.events);
    const quote = quoteOf({ body: { rtmr3: replay.rtmrs[3] } });
    const rule = { osImageHash: app.osImageHash!, keyProvider: app.keyProvider! };
    expect(verify(quote, { eventLog: log, measurements: { eventLog: rule } })).toMatchObject({
      valid: true,
      eventLog: { app: { osImageHash: app.osImageHash } },
    });
    expect(
      verify(quote, {
        eventLog: log,
        measurements: { eventLog: { ...rule, osImageHash: '00'.repeat(32) } },
      }),
    ).toMatchObject({ failure: 'EVENT_LOG' });
    expect(
      verify(quote, {
        eventLog: log,
        measurements: { eventLog: { keyProvider: '{"name":"other"}' } },
      }),
    ).toMatchObject({
      failure: 'EVENT_LOG',
      message: expect.stringContaining('key provider') as string,
    });
  });
});

describe('nothing smuggled beside the certificate chain', () => {
  it('refuses bytes after the certification data inside the signature data', () => {
    const quote = quoteOf();
    const signedLength = 48 + 584;
    const declared = quote.readUInt32LE(signedLength);
    const grown = Buffer.concat([quote, Buffer.from('smuggled')]);
    grown.writeUInt32LE(declared + 8, signedLength);
    expect(verify(grown)).toMatchObject({ valid: false, failure: 'CERTIFICATION_SIZE' });
    // Outside the quote's declared end, bytes are not part of the quote (padding): ignored.
    expect(verify(Buffer.concat([quote, Buffer.from('padding')]))).toMatchObject({ valid: true });
  });

  it('refuses bytes between or after the PEM certificates of the chain', () => {
    for (const chain of [
      [pki.pckPem, 'smuggled', pki.caPem],
      [pki.pckPem, pki.caPem, 'smuggled'],
    ]) {
      expect(verify(quoteOf({ chain }))).toMatchObject({
        valid: false,
        failure: 'CERTIFICATION_SIZE',
      });
    }
  });
});
