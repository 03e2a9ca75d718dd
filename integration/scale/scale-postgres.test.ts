import { describe } from 'vitest';
import { postgresUnavailable } from './cluster';
import { clusterSuite } from './cluster-suite';

const unavailable = await postgresUnavailable();
// A silent skip would hide an untested deployment.
// eslint-disable-next-line no-console
if (unavailable) console.warn(`skipping the PostgreSQL scale tests: ${unavailable}`);

describe.skipIf(unavailable)('three processes, rooms through PostgreSQL', () => {
  clusterSuite();
});
