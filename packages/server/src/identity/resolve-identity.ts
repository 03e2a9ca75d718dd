import { ParleyError } from '@parley/core';
import { safeEqual } from '@parley/plugin-sdk';
import {
  createRemoteJWKSet,
  errors,
  type JWTHeaderParameters,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
  SignJWT,
} from 'jose';
import { LRUCache } from 'lru-cache';
import { createHash, randomUUID } from 'node:crypto';
import type { AuthSettings } from './auth-settings';
import { entityIdOf, type Identity, OPERATOR } from './identity';
import { type IssuerMetadata, oidcDiscovery } from './oidc-discovery';

/** The asymmetric algorithms a JWKS-verified token may use; `none` and HS* are never taken from a JWKS. */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'ES384', 'EdDSA'] as const;

/** The issuer of guest tokens the server mints itself (`AUTH_ANONYMOUS`). */
export const GUEST_ISSUER = 'urn:parley:guest';

/** Why a token was refused, in words a client can act on (never the token). */
export class AuthError extends ParleyError {
  constructor(
    message: string,
    readonly reason: 'missing' | 'invalid',
  ) {
    super('UNAUTHORIZED', message);
  }
}

/** Resolves a request's credentials to an identity. */
export interface IdentityResolver {
  /** Whether people (JWTs, guests) are accepted, not only the operator token. */
  readonly configured: boolean;
  /** Whether guest tokens are issued. */
  readonly anonymous: boolean;
  /** The settings it was built from. */
  readonly settings: AuthSettings;
  /** `AUTH_ISSUER`'s discovery document (fetched once, shared with the JWKS); absent without an issuer. */
  readonly issuerMetadata?: () => Promise<IssuerMetadata>;
  /**
   * The identity of `credential` (the `x-api-key` value or the Bearer token): the operator for the server token,
   * a user for a verified JWT, a guest for a guest token the server issued. Absent or refused: AuthError (401).
   */
  resolve(credential: string | undefined): Promise<Identity>;
  /** A new guest identity and the token that carries it (`AUTH_ANONYMOUS` only). */
  issueGuest(name?: string): Promise<{ token: string; identity: Identity; expiresAt: string }>;
}

export interface IdentityResolverOptions {
  settings: AuthSettings;
  /** The operator's token (`SERVER_AUTH_TOKEN`): always admin. */
  operatorToken?: string;
  /** Fetch for OIDC discovery (tests); default global fetch. */
  fetch?: typeof fetch;
}

const MIN_SECRET_LENGTH = 32;

/** How many verified tokens are remembered (by their SHA-256, about 150 bytes each with the identity). */
const VERIFIED_TOKENS = 10_000;

/** How long a verified token is taken without verifying its signature again: at most this, never past its `exp`. */
const VERIFIED_TTL_MS = 60_000;

/** A verified token's identity, when the token ends (seconds since the epoch, its `exp`) and, for a token
 * verified with the issuer's JWKS, its header and the key that verified it. */
interface Verified {
  identity: Identity;
  exp: number | undefined;
  signedBy?: { header: JWTHeaderParameters; key: unknown };
}

/** Builds the resolver from the identity settings. */
export function createIdentityResolver(options: IdentityResolverOptions): IdentityResolver {
  const { settings, operatorToken } = options;
  const skew = settings.AUTH_CLOCK_SKEW_SECONDS;
  const audience = settings.AUTH_AUDIENCE.length > 0 ? settings.AUTH_AUDIENCE : undefined;
  const adminRoles = new Set(
    settings.AUTH_ADMIN_ROLES.length ? settings.AUTH_ADMIN_ROLES : ['admin'],
  );
  const approverRoles = new Set(
    settings.AUTH_APPROVER_ROLES.length ? settings.AUTH_APPROVER_ROLES : ['approver'],
  );
  const secret = settings.AUTH_JWT_SECRET;
  if (secret !== undefined && secret.length < MIN_SECRET_LENGTH) {
    throw new ParleyError(
      'BAD_REQUEST',
      `AUTH_JWT_SECRET must be at least ${MIN_SECRET_LENGTH} characters`,
    );
  }
  const secretKey = secret === undefined ? undefined : new TextEncoder().encode(secret);
  // Guest tokens are signed with their own key: the shared secret when there is one (a restart keeps guests),
  // else a random one per process (a restart signs every guest out, which is what an unnamed visitor expects).
  const guestKey = new TextEncoder().encode(
    `guest:${secret ?? operatorToken ?? randomUUID() + randomUUID()}`,
  );
  const fetchImpl = options.fetch ?? fetch;
  const discovery = settings.AUTH_ISSUER
    ? oidcDiscovery(settings.AUTH_ISSUER, fetchImpl)
    : undefined;
  let remote: Promise<JWTVerifyGetKey> | undefined;

  const jwks = (): Promise<JWTVerifyGetKey> => {
    remote ??= (async () => {
      const url = settings.AUTH_JWKS_URL ?? (await discovery!()).jwks_uri;
      if (!url) throw new Error('OIDC discovery names no jwks_uri');
      return createRemoteJWKSet(new URL(url), {
        cooldownDuration: settings.AUTH_JWKS_COOLDOWN_MS,
        cacheMaxAge: 10 * 60_000,
        timeoutDuration: 10_000,
      });
    })().catch((error: unknown) => {
      remote = undefined; // the next request tries discovery again
      throw error;
    });
    return remote;
  };
  const usesJwks = Boolean(settings.AUTH_ISSUER || settings.AUTH_JWKS_URL);

  const rolesOf = (payload: JWTPayload): Set<string> => {
    const raw = claimAt(payload, settings.AUTH_ROLES_CLAIM);
    const names =
      typeof raw === 'string'
        ? raw.split(/\s+/)
        : Array.isArray(raw)
          ? raw.filter((item): item is string => typeof item === 'string')
          : [];
    const roles = new Set<string>(['user']);
    for (const name of names) {
      if (adminRoles.has(name)) roles.add('admin');
      if (approverRoles.has(name)) roles.add('approver');
    }
    return roles;
  };

  const userOf = (payload: JWTPayload, issuer: string): Identity => {
    if (typeof payload.sub !== 'string' || payload.sub === '') {
      throw new AuthError('The token names no subject (sub)', 'invalid');
    }
    const roles = rolesOf(payload);
    const name = claimAt(payload, settings.AUTH_NAME_CLAIM);
    return {
      kind: roles.has('admin') ? 'admin' : 'user',
      entityId: entityIdOf(issuer, payload.sub),
      name: typeof name === 'string' ? name.slice(0, 200) : undefined,
      roles,
      subject: payload.sub,
      issuer,
    };
  };

  const verifyGuest = async (token: string): Promise<Verified | undefined> => {
    try {
      const { payload } = await jwtVerify(token, guestKey, {
        algorithms: ['HS256'],
        issuer: GUEST_ISSUER,
        clockTolerance: skew,
      });
      if (typeof payload.sub !== 'string') return undefined;
      const identity: Identity = {
        kind: 'guest',
        entityId: entityIdOf(GUEST_ISSUER, payload.sub),
        name: typeof payload.name === 'string' ? payload.name : undefined,
        roles: new Set(['guest']),
        subject: payload.sub,
        issuer: GUEST_ISSUER,
      };
      return { identity, exp: payload.exp };
    } catch {
      return undefined;
    }
  };

  const verifyUser = async (token: string): Promise<Verified> => {
    const common = {
      audience,
      clockTolerance: skew,
      requiredClaims: ['exp', 'sub'],
    };
    let lastError: unknown;
    if (usesJwks) {
      try {
        const { payload, protectedHeader, key } = await jwtVerify(token, await jwks(), {
          ...common,
          issuer: settings.AUTH_ISSUER,
          algorithms: [...ASYMMETRIC_ALGORITHMS],
        });
        const issuer = payload.iss ?? settings.AUTH_ISSUER ?? settings.AUTH_JWKS_URL!;
        return {
          identity: userOf(payload, issuer),
          exp: payload.exp,
          signedBy: { header: protectedHeader, key },
        };
      } catch (error) {
        lastError = error;
      }
    }
    if (secretKey) {
      try {
        const { payload } = await jwtVerify(token, secretKey, {
          ...common,
          issuer: settings.AUTH_ISSUER,
          algorithms: ['HS256'],
        });
        return {
          identity: userOf(payload, payload.iss ?? 'urn:parley:shared-secret'),
          exp: payload.exp,
        };
      } catch (error) {
        if (!usesJwks || !(error instanceof errors.JOSEAlgNotAllowed)) lastError = error;
      }
    }
    throw new AuthError(refusal(lastError), 'invalid');
  };

  /** Whether the issuer's JWKS, as the server holds it now, still gives the key that verified `known`. */
  const stillSigned = async ({ signedBy }: Verified): Promise<boolean> => {
    if (!signedBy) return true;
    try {
      const getKey = (await jwks()) as (header: JWTHeaderParameters) => Promise<unknown>;
      return (await getKey(signedBy.header)) === signedBy.key;
    } catch {
      return false;
    }
  };

  // A person sends the same token with every request until it ends: its signature and claims are checked once,
  // and the identity is reused for a minute at most and never past the token's `exp` (the clock skew allowed
  // at verification is not extended here), and only while the JWKS still holds the key that signed it (a key the
  // issuer withdraws stops its tokens as soon as the server has the new JWKS, as without this cache). Only
  // verified tokens are kept, so a flood of bad ones adds nothing.
  const verified = new LRUCache<string, Verified>({ max: VERIFIED_TOKENS });
  const verifyOnce = async (token: string): Promise<Identity> => {
    const key = createHash('sha256').update(token).digest('base64url');
    const known = verified.get(key);
    if (known && (known.exp === undefined || known.exp * 1000 > Date.now())) {
      if (await stillSigned(known)) return known.identity;
      verified.delete(key);
    }
    const fresh =
      (settings.AUTH_ANONYMOUS ? await verifyGuest(token) : undefined) ??
      (await verifyPerson(token));
    const untilExp = fresh.exp === undefined ? VERIFIED_TTL_MS : fresh.exp * 1000 - Date.now();
    if (untilExp > 0) verified.set(key, fresh, { ttl: Math.min(VERIFIED_TTL_MS, untilExp) });
    return fresh.identity;
  };
  const verifyPerson = (token: string): Promise<Verified> => {
    if (!usesJwks && !secretKey) throw new AuthError('Invalid token', 'invalid');
    return verifyUser(token);
  };

  return {
    configured: usesJwks || secretKey !== undefined || settings.AUTH_ANONYMOUS,
    anonymous: settings.AUTH_ANONYMOUS,
    settings,
    issuerMetadata: discovery,
    async resolve(credential) {
      if (credential === undefined || credential === '') {
        throw new AuthError(
          'An access token (Authorization header) or the x-api-key header is required',
          'missing',
        );
      }
      if (operatorToken && safeEqual(credential, operatorToken)) return OPERATOR;
      if (!looksLikeJwt(credential)) throw new AuthError('Invalid token', 'invalid');
      return verifyOnce(credential);
    },
    async issueGuest(name) {
      if (!settings.AUTH_ANONYMOUS) {
        throw new ParleyError('FORBIDDEN', 'Guests are not allowed here (AUTH_ANONYMOUS is off)');
      }
      const subject = randomUUID();
      const ttl = settings.AUTH_GUEST_TTL_SECONDS;
      const expires = Math.floor(Date.now() / 1000) + Math.round(ttl);
      const token = await new SignJWT(name ? { name } : {})
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(GUEST_ISSUER)
        .setSubject(subject)
        .setIssuedAt()
        .setExpirationTime(expires)
        .sign(guestKey);
      const { identity } = (await verifyGuest(token))!;
      return { token, identity, expiresAt: new Date(expires * 1000).toISOString() };
    },
  };
}

function looksLikeJwt(value: string): boolean {
  return value.length < 16_384 && /^[\w-]+\.[\w-]*\.[\w-]*$/.test(value);
}

/** A claim by name, or by dotted path (`realm_access.roles`, as Keycloak puts roles). */
function claimAt(payload: JWTPayload, path: string): unknown {
  if (path in payload) return payload[path];
  let value: unknown = payload;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** What a refusal says: the kind of problem, never the token or a key. */
function refusal(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    return `The token's ${error.claim} claim is not accepted (${error.reason})`;
  }
  if (error instanceof errors.JOSEAlgNotAllowed) return "The token's algorithm is not accepted";
  if (error instanceof errors.JWKSNoMatchingKey)
    return 'The token was signed with a key the issuer does not hold';
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return "The token's signature is invalid";
  if (error instanceof errors.JWKSTimeout || error instanceof TypeError) {
    return 'The identity provider could not be reached to verify the token';
  }
  return 'Invalid token';
}
