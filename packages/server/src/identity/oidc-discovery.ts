import * as oauth from 'oauth4webapi';

/** An OIDC issuer's discovery document, as `oauth4webapi` reads and checks it. */
export type IssuerMetadata = oauth.AuthorizationServer;

/** Options of an OAuth request to the issuer: its fetch, and plain http only for an `http:` issuer. */
export function issuerRequestOptions(issuer: URL, fetchImpl: typeof fetch) {
  return {
    [oauth.customFetch]: fetchImpl,
    // An operator who configures an http issuer (a local provider, the tests) means it; https stays required
    // for every https issuer.
    [oauth.allowInsecureRequests]: issuer.protocol === 'http:',
    signal: AbortSignal.timeout(10_000),
  };
}

/**
 * The discovery document of `issuer` (`/.well-known/openid-configuration`, its `issuer` checked), fetched on first
 * use and kept; a failed fetch is not kept, so the next caller tries again. Shared by the JWKS (its `jwks_uri`)
 * and the chat page's sign-in (its endpoints).
 */
export function oidcDiscovery(
  issuer: string,
  fetchImpl: typeof fetch,
): () => Promise<IssuerMetadata> {
  let pending: Promise<IssuerMetadata> | undefined;
  return () => {
    pending ??= (async () => {
      const url = new URL(issuer);
      const response = await oauth.discoveryRequest(url, {
        algorithm: 'oidc',
        ...issuerRequestOptions(url, fetchImpl),
      });
      return oauth.processDiscoveryResponse(url, response);
    })().catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
    return pending;
  };
}
