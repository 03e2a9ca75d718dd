import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { keccak_256 } from '@noble/hashes/sha3.js';
import { ParleyError } from '@parley/core';
import type { DstackGuest, GetKeyRequest, GetKeyResponse } from '../dstack/dstack-guest';
import { encodeSimulatorQuote } from './encode-simulator-quote';
import { createSimulatorSecrets, type SimulatorSecrets } from './simulator-secrets';
import { simulatorMeasurements } from './simulator-measurements';

/** Options of {@link createDstackSimulator}. */
export interface DstackSimulatorOptions {
  /** Fixes the instance: same salt, same keys, app id and attestation key. */
  salt: string;
  /** Marks the simulated TD as a debug TD (to exercise verifiers' debug policy). */
  debug?: boolean;
  /** Quote version to issue: 4 (default, TD 1.0 report) or 5 (TD 1.5 report, body type 3). */
  quoteVersion?: 4 | 5;
}

/** The simulated app's app-compose.json (dstack hashes it with SHA-256 into the compose hash). */
const APP_COMPOSE = JSON.stringify({
  manifest_version: 2,
  name: 'parley-simulator',
  runner: 'docker-compose',
  docker_compose_file: '',
});

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const encoder = new TextEncoder();

/** A secret key for `label` that is valid on the curve (HKDF output at or above the order is ~2^-128 rare). */
function curveKey(secrets: SimulatorSecrets, label: string, isValid: (key: Uint8Array) => boolean) {
  for (let counter = 0; ; counter += 1) {
    const key = secrets.derive(`${label}#${counter}`);
    if (isValid(key)) return key;
  }
}

/** Signs like dstack's KMS chain: secp256k1, recoverable, over keccak256 of the message. */
function chainSignature(message: string, key: Uint8Array): string {
  return hex(
    secp256k1.sign(keccak_256(encoder.encode(message)), key, {
      prehash: false,
      format: 'recovered',
    }),
  );
}

/**
 * A dstack guest API simulator that runs in-process: the same requests and answers as dstack, keys derived
 * deterministically from the salt and path, and quotes in Intel's TDX v4 or v5 layout signed by a simulator chain, with a dstack-style event log
 * whose replay is the quote's RTMR3.
 *
 * @example
 * const dstack = createDstackSimulator({ salt });
 * const { key } = await dstack.getKey({ path: 'wallet/eth' });
 */
export function createDstackSimulator(options: DstackSimulatorOptions): DstackGuest {
  const secrets = createSimulatorSecrets(options.salt);
  const isSecp = (key: Uint8Array) => secp256k1.utils.isValidSecretKey(key);
  const appKey = curveKey(secrets, 'app-key', isSecp);
  // The KMS root is shared by every simulator, like one KMS serving many apps.
  const kmsRootKey = keccak_256(encoder.encode('parley/dstack-simulator/kms-root'));
  const attestationKey = curveKey(secrets, 'attestation-key', (key) =>
    p256.utils.isValidSecretKey(key),
  );
  const appId = hex(secrets.derive('app-id', 20));
  const instanceId = hex(secrets.derive('instance-id', 20));
  const composeHash = hex(sha256(encoder.encode(APP_COMPOSE)));
  const measurements = simulatorMeasurements({ appId, instanceId, composeHash });

  function getKey({ path, purpose = '', algorithm = 'secp256k1' }: GetKeyRequest): GetKeyResponse {
    const label = `get-key\0${algorithm}\0${path}`;
    let key: Uint8Array;
    let publicKey: Uint8Array;
    if (algorithm === 'secp256k1' || algorithm === 'k256' || algorithm === '') {
      key = curveKey(secrets, label, isSecp);
      publicKey = secp256k1.getPublicKey(key, true);
    } else if (algorithm === 'ed25519') {
      key = secrets.derive(label);
      publicKey = ed25519.getPublicKey(key);
    } else {
      throw new ParleyError('BAD_REQUEST', `Unsupported key algorithm "${algorithm}"`);
    }
    const appPublicKey = secp256k1.getPublicKey(appKey, true);
    return {
      key: hex(key),
      signature_chain: [
        chainSignature(`${purpose}:${hex(publicKey)}`, appKey),
        chainSignature(`dstack-kms-issued:${appId}:${hex(appPublicKey)}`, kmsRootKey),
      ],
    };
  }

  return {
    endpoint: 'built-in simulator',
    getKey: (request) => Promise.resolve().then(() => getKey(request)),
    getQuote(reportData) {
      if (reportData.length > 64) {
        return Promise.reject(new ParleyError('BAD_REQUEST', 'Report data exceeds 64 bytes'));
      }
      const padded = new Uint8Array(64);
      padded.set(reportData);
      const quote = encodeSimulatorQuote({
        reportData: padded,
        measurements,
        attestationKey,
        debug: options.debug ?? false,
        version: options.quoteVersion ?? 4,
      });
      return Promise.resolve({
        quote: hex(quote),
        event_log: JSON.stringify(measurements.eventLog),
        report_data: hex(padded),
      });
    },
    info() {
      const [rtmr0, rtmr1, rtmr2, rtmr3] = measurements.rtmrs.map(hex);
      const tcbInfo = {
        mrtd: hex(measurements.mrTd),
        rtmr0,
        rtmr1,
        rtmr2,
        rtmr3,
        event_log: measurements.eventLog,
        app_compose: APP_COMPOSE,
      };
      return Promise.resolve({
        app_id: appId,
        instance_id: instanceId,
        app_cert: '',
        tcb_info: JSON.stringify(tcbInfo),
        app_name: 'parley-simulator',
        device_id: hex(secrets.derive('device-id')),
        key_provider_info: JSON.stringify({ name: 'parley-simulator' }),
        compose_hash: composeHash,
      });
    },
  };
}
