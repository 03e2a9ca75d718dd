// oidc-provider ships no types; the tests use it through the narrow interface in oidc-issuer.ts.
declare module 'oidc-provider' {
  const Provider: unknown;
  export default Provider;
}
