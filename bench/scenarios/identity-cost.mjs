import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { createServer } from 'node:http';
import { runLatencyClient, startModelServer, usageRows, withServer } from '../lib/harness.mjs';
import { alternateRounds, cpuRatio, repliesNote, variantFigures } from '../lib/variants.mjs';

/** Measured phases per variant, alternated (no auth, JWT, no auth, JWT), so a drift of the machine hits both. */
const ROUNDS = 4;

/** The target (issue 38): a reply for a person signed in with a JWT costs at most 1.1× one with no auth. */
const MAX_RATIO = 1.1;

const TEXT = 'Hello, how are you today?';

const base64url = (value) => Buffer.from(value).toString('base64url');

/**
 * An ES256 key pair and a JWKS endpoint on 127.0.0.1 serving its public half, as an identity provider's: the
 * server fetches it once and caches it (the "cached keys" of the target).
 */
async function startJwks() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = publicKey.export({ format: 'jwk' });
  const kid = createHash('sha256').update(JSON.stringify(jwk)).digest('base64url').slice(0, 16);
  let fetches = 0;
  const http = createServer((request, response) => {
    fetches += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: [{ ...jwk, kid, alg: 'ES256', use: 'sig' }] }));
  });
  await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${http.address().port}/jwks.json`;
  return {
    url,
    get fetches() {
      return fetches;
    },
    /** A token for `subject`, valid for an hour. */
    token(subject) {
      const header = base64url(JSON.stringify({ alg: 'ES256', kid, typ: 'JWT' }));
      const now = Math.floor(Date.now() / 1000);
      const payload = base64url(
        JSON.stringify({ sub: subject, iss: 'https://bench.example', iat: now, exp: now + 3600 }),
      );
      const signature = sign('sha256', Buffer.from(`${header}.${payload}`), {
        key: privateKey,
        dsaEncoding: 'ieee-p1363',
      });
      return `${header}.${payload}.${signature.toString('base64url')}`;
    },
    close: () => new Promise((resolve) => http.close(resolve)),
  };
}

/**
 * 13. The same sync reply on two servers run side by side: one with no auth, one that verifies each request's
 * ES256 JWT against an identity provider's JWKS (keys cached after the first fetch) and answers for the person
 * it names, with the per-person checks that come with it (rate budget, channel membership, the reply bound).
 * One client, one request after the other, measured two ways: each reply in a new channel (the person's post
 * claims it: a write the server with no auth never makes), and each in one channel (a conversation: the post
 * reads the person's membership). The limit is the server with no auth doing the same.
 */
export default {
  id: 'identity-cost',
  title:
    '13. a reply for a person signed in with a JWT vs the same reply with no auth (1 client, sequential)',
  run: async (context) => {
    const model = await startModelServer();
    const jwks = await startJwks();
    try {
      const withModel = { ...context, model };
      const token = jwks.token('bench-person');
      const measured = await withServer(withModel, 'identity-none', (plain) =>
        withServer(
          withModel,
          'identity-jwt',
          async (signedIn) => {
            const me = await fetch(`${signedIn.url}/api/auth/me`, {
              headers: { authorization: `Bearer ${token}` },
            });
            if (!me.ok) throw new Error(`GET /api/auth/me answered ${me.status}`);
            const { data } = await me.json();
            const none = { running: plain, headers: {}, entityId: 'bench-user' };
            const jwt = {
              running: signedIn,
              headers: { authorization: `Bearer ${token}` },
              entityId: data.entityId,
            };
            // Each reply in a new channel (a person's post claims it), and each in the person's one channel
            // (their conversation: the post reads their membership).
            const variants = {
              none,
              jwt,
              'none-own': { ...none, channelId: randomUUID() },
              'jwt-own': { ...jwt, channelId: randomUUID() },
            };
            const phaseMs = (context.durationS * 1000) / ROUNDS / Object.keys(variants).length;
            return alternateRounds(ROUNDS, Object.keys(variants), (variant, round) => {
              const { running, headers, entityId, channelId } = variants[variant];
              return runLatencyClient(
                withModel,
                { server: running.server, name: `${running.name}-${variant}-${round}` },
                {
                  url: running.url,
                  path: `/api/messaging/channels/${channelId ?? '{channel}'}/messages`,
                  headers,
                  body: { text: TEXT, entityId, mode: 'sync' },
                  mode: 'sync',
                  warmupRequests: round === 0 ? 100 : 5,
                  durationMs: phaseMs,
                  maxRequests: 25_000,
                },
              );
            });
          },
          { serverOptions: { env: { AUTH_JWKS_URL: jwks.url } } },
        ),
      );
      const none = variantFigures(measured.totals.none);
      const jwt = variantFigures(measured.totals.jwt);
      const cpu = cpuRatio({
        figure: 'server CPU per reply, JWT (ES256, cached keys)',
        measured: jwt,
        limit: none,
        maxRatio: MAX_RATIO,
        what: 'for a JWT person',
        limitWhat: 'with no auth',
      });
      const ownCpu = cpuRatio({
        figure: 'the same, in their own channel',
        measured: variantFigures(measured.totals['jwt-own']),
        limit: variantFigures(measured.totals['none-own']),
        maxRatio: MAX_RATIO,
        what: 'for a JWT person in their channel',
        limitWhat: 'with no auth in one channel',
      });
      return {
        rows: [
          cpu.row,
          ownCpu.row,
          { figure: 'p50 latency', value: jwt.latency.p50, unit: 'ms', limit: none.latency.p50 },
          { figure: 'p99 latency', value: jwt.latency.p99, unit: 'ms', limit: none.latency.p99 },
          { figure: 'throughput', value: jwt.perSecond, unit: 'replies/s', limit: none.perSecond },
          ...usageRows(jwt.usage, jwt.clientCpu, { serverCpu: none.usage.serverCpu }),
        ],
        notes: [
          `limit: the same sync reply on a server with no auth, run beside it, ${ROUNDS} alternated rounds each; the JWKS was fetched ${jwks.fetches} time(s)`,
          cpu.note,
          ownCpu.note,
          `CPU per reply ratio by round: ${measured.roundRatios.map((value) => `${value.toFixed(2)}×`).join(', ')}`,
          repliesNote('JWT', measured.totals.jwt),
          repliesNote('no auth', measured.totals.none),
          repliesNote('JWT in their channel', measured.totals['jwt-own']),
          repliesNote('no auth in one channel', measured.totals['none-own']),
        ],
      };
    } finally {
      await jwks.close();
      await model.stop();
    }
  },
};
