import { readDstackAppInfo, type DstackAppInfo } from '../event-log/dstack-app-info';
import { replayEventLog, type EventLogReplay } from '../event-log/replay-event-log';
import type { TeeEvent } from '../event-log/tee-event';
import type { TdxQuote } from '../quote/tdx-quote';
import { TD_MEASUREMENT_FIELDS } from '../quote/tdx-quote-layout';
import type { BitRule, Expected, MeasurementPolicy } from './measurement-policy';

/** A failed measurement check, or what the event log showed. */
export type MeasurementCheck =
  | {
      valid: true;
      eventLog?: { replay: Extract<EventLogReplay, { valid: true }>; app: DstackAppInfo };
    }
  | { valid: false; failure: 'MEASUREMENT' | 'EVENT_LOG' | 'EVENT_LOG_DUPLICATE'; message: string };

const normal = (hex: string) => hex.replace(/^0x/i, '').toLowerCase();

function matches(actual: string | undefined, expected: Expected): boolean {
  const accepted = typeof expected === 'string' ? [expected] : expected;
  return actual !== undefined && accepted.some((value) => normal(value) === normal(actual));
}

function matchesBits(actual: string, rule: string | BitRule): boolean {
  if (typeof rule === 'string') return matches(actual, rule);
  const [value, mask, wanted] = [actual, rule.mask, rule.value].map((hex) =>
    Buffer.from(normal(hex), 'hex'),
  );
  return (
    value!.length === mask!.length &&
    value!.every((byte, index) => (byte & mask![index]!) === (wanted![index]! & mask![index]!))
  );
}

/** The registers a policy may pin: the TD report's measurements, and the TD 1.5 service TD's. */
const FIELDS = [...TD_MEASUREMENT_FIELDS, 'mrServiceTd'] as const;

function checkEventLog(
  quote: TdxQuote,
  rule: NonNullable<MeasurementPolicy['eventLog']>,
  eventLog: readonly TeeEvent[] | undefined,
): MeasurementCheck {
  if (!eventLog)
    return { valid: false, failure: 'EVENT_LOG', message: 'the policy needs an event log' };
  const replay = replayEventLog(eventLog);
  if (!replay.valid) return { valid: false, failure: 'EVENT_LOG', message: replay.message };
  if (replay.rtmrs[3] !== quote.body.rtmr3) {
    return {
      valid: false,
      failure: 'EVENT_LOG',
      message: "the event log does not replay to the quote's RTMR3",
    };
  }
  const app = readDstackAppInfo(replay.events);
  if (app.duplicates.length > 0) {
    return {
      valid: false,
      failure: 'EVENT_LOG_DUPLICATE',
      message: `the event log names ${app.duplicates.join(', ')} more than once before system-ready`,
    };
  }
  const keyProviders =
    typeof rule.keyProvider === 'string' ? [rule.keyProvider] : (rule.keyProvider ?? undefined);
  if (keyProviders && !keyProviders.includes(app.keyProvider ?? '\0')) {
    return {
      valid: false,
      failure: 'EVENT_LOG',
      message: `key provider ${app.keyProvider ?? '(none)'} is not the expected one`,
    };
  }
  for (const key of ['appId', 'composeHash', 'instanceId', 'osImageHash'] as const) {
    const expected = rule[key];
    if (expected !== undefined && !matches(app[key], expected)) {
      return {
        valid: false,
        failure: 'EVENT_LOG',
        message: `${key} ${app[key] ?? '(none)'} is not the expected one`,
      };
    }
  }
  return { valid: true, eventLog: { replay, app } };
}

/**
 * Compares a verified quote's measurements with a policy: MRTD, RTMR0-3 and mrConfigId against expected
 * values (and mrOwner, mrOwnerConfig, mrSeam, mrServiceTd), TD attributes and XFAM against exact values or bit rules, and, with `eventLog`, an event log that
 * replays to RTMR3 and names the expected app (dstack app id, compose hash, instance id, OS image hash, key provider).
 */
export function checkMeasurements(
  quote: TdxQuote,
  policy: MeasurementPolicy,
  eventLog?: readonly TeeEvent[],
): MeasurementCheck {
  for (const field of FIELDS) {
    const expected = policy[field];
    // mrServiceTd exists only in TD 1.5 reports; a TD 1.0 report has none (all zero).
    const actual =
      field === 'mrServiceTd' ? (quote.body[field] ?? '00'.repeat(48)) : quote.body[field];
    if (expected !== undefined && !matches(actual, expected)) {
      return {
        valid: false,
        failure: 'MEASUREMENT',
        message: `${field} ${actual} is not the expected one`,
      };
    }
  }
  for (const field of ['tdAttributes', 'xfam'] as const) {
    const rule = policy[field];
    if (rule !== undefined && !matchesBits(quote.body[field], rule)) {
      return {
        valid: false,
        failure: 'MEASUREMENT',
        message: `${field} ${quote.body[field]} breaks the policy`,
      };
    }
  }
  return policy.eventLog ? checkEventLog(quote, policy.eventLog, eventLog) : { valid: true };
}
