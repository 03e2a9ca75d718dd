import { beforeAll } from 'vitest';
import { createTestPki, type TestPki } from './test-pki';

/** The platform the private-PKI tests sign for: one FMSPC, every TCB component at SVN 2, PCE SVN 11. */
export const TEST_PLATFORM = {
  fmspc: '00906ed50000',
  pceId: '0000',
  components: Array(16).fill(2) as number[],
  pceSvn: 11,
};

/**
 * A private PKI for {@link TEST_PLATFORM}, created once before the tests of the file (or of the describe block
 * it is called in). The object is filled in by that `beforeAll`, so read its fields only inside tests.
 */
export function useTestPki(): TestPki {
  const pki = {} as TestPki;
  beforeAll(async () => {
    Object.assign(pki, await createTestPki(TEST_PLATFORM));
  });
  return pki;
}
