/**
 * Root CA of Parley's built-in dstack simulator. Verification trusts it only with `allowSimulator: true`.
 *
 * Why a fixed certificate: node:crypto can parse and verify X.509 but cannot issue it, and a verifier can only
 * pin a root it knows in advance. So the simulator's root and PCK-like leaf were issued once with OpenSSL
 * (P-256, valid 2025-01-01 to 2049-12-31) and shipped as constants; the root's private key was thrown away.
 * The leaf's private key ships with the simulator, so anyone can forge a simulator quote: a simulator quote
 * proves the code path, never the hardware. That is exactly why production policy rejects this root.
 */
export const SIMULATOR_ROOT_CA_PEM = `-----BEGIN CERTIFICATE-----
MIIB8jCCAZegAwIBAgICEAAwCgYIKoZIzj0EAwIwXjElMCMGA1UEAwwcUGFybGV5
IFRFRSBTaW11bGF0b3IgUm9vdCBDQTE1MDMGA1UECgwsUGFybGV5IHNpbXVsYXRv
ciAtIG5vdCB0cnVzdGVkIGluIHByb2R1Y3Rpb24wHhcNMjUwMTAxMDAwMDAwWhcN
NDkxMjMxMjM1OTU5WjBeMSUwIwYDVQQDDBxQYXJsZXkgVEVFIFNpbXVsYXRvciBS
b290IENBMTUwMwYDVQQKDCxQYXJsZXkgc2ltdWxhdG9yIC0gbm90IHRydXN0ZWQg
aW4gcHJvZHVjdGlvbjBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABLlSOovhQPG+
xyaCVS3tGb/GN01WjBvMCnFjWxndl9HSSYYRJ7mPK1mKInA5Nodu4mekC/3yntBx
jDXI/6O6cCSjRTBDMBIGA1UdEwEB/wQIMAYBAf8CAQEwDgYDVR0PAQH/BAQDAgEG
MB0GA1UdDgQWBBSQyoh4aj8SGY/De4LEaxbpufIPADAKBggqhkjOPQQDAgNJADBG
AiEA8wtTaFHhObRdj11GMGakjV060tw36NUMXa3l+BDH14ECIQCW/Rutogxo+DjG
Il0vNLPwwdfcQMlyVglp/L+dsGl3bQ==
-----END CERTIFICATE-----
`;
