/**
 * The simulator's PCK-like leaf certificate and its private key, issued once with OpenSSL by the root in
 * `SIMULATOR_ROOT_CA_PEM` (@parley/tee), valid 2025-01-01 to 2049-12-31.
 *
 * Why fixed and why public: node:crypto cannot issue certificates, and a verifier can only pin a root it knows
 * in advance, so the chain is a constant. The key being public means anyone can forge a simulator quote, which
 * is the honest state of a simulator: production verification never trusts its root. Not a secret.
 */
export const SIMULATOR_PCK_CERTIFICATE_PEM = `-----BEGIN CERTIFICATE-----
MIICFDCCAbqgAwIBAgICEAEwCgYIKoZIzj0EAwIwXjElMCMGA1UEAwwcUGFybGV5
IFRFRSBTaW11bGF0b3IgUm9vdCBDQTE1MDMGA1UECgwsUGFybGV5IHNpbXVsYXRv
ciAtIG5vdCB0cnVzdGVkIGluIHByb2R1Y3Rpb24wHhcNMjUwMTAxMDAwMDAwWhcN
NDkxMjMxMjM1OTU5WjBmMS0wKwYDVQQDDCRQYXJsZXkgVEVFIFNpbXVsYXRvciBQ
Q0sgQ2VydGlmaWNhdGUxNTAzBgNVBAoMLFBhcmxleSBzaW11bGF0b3IgLSBub3Qg
dHJ1c3RlZCBpbiBwcm9kdWN0aW9uMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE
8Zl/gLLOzsBwbZ4oM7NR6qK468n6D5yfFO82v8jXWJkHQBz/dxZ+gZp29KSdbmyD
CTb9813pfUKPn+eBExuZE6NgMF4wDAYDVR0TAQH/BAIwADAOBgNVHQ8BAf8EBAMC
BsAwHQYDVR0OBBYEFAvQkVV5Ckc13SUuOADvtgmKkyyXMB8GA1UdIwQYMBaAFJDK
iHhqPxIZj8N7gsRrFum58g8AMAoGCCqGSM49BAMCA0gAMEUCIA1b7iwPl3szVhCD
mopCyd0snFagHWp7eHkYcyDGn0qlAiEA/AxjtrZ3zJ66Q64nc1T6YTyjDi1t3r+/
B07MCzVy4bM=
-----END CERTIFICATE-----
`;

/** PKCS#8 P-256 private key of {@link SIMULATOR_PCK_CERTIFICATE_PEM}: public on purpose (see above). */
export const SIMULATOR_PCK_PRIVATE_KEY_PEM = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgmSuMTQMpDUY6T8c8
U4V4eD10Wa0CeAOuz15a91+d3HqhRANCAATxmX+Ass7OwHBtnigzs1HqorjryfoP
nJ8U7za/yNdYmQdAHP93Fn6Bmnb0pJ1ubIMJNv3zXel9Qo+f54ETG5kT
-----END PRIVATE KEY-----
`;
