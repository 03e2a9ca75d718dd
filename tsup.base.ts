import { defineConfig, type Options } from 'tsup';

/**
 * PARLEY_NO_DTS=1 (the `start` script) skips type declarations: 90% of the build, and a server needs none.
 * Declarations also need every dependency's own, so a build without them leaves `dist/` as it is (no clean).
 */
export const withDeclarations = !process.env.PARLEY_NO_DTS;

/**
 * The one build configuration of the workspace's packages, apps and examples: ES modules for Node 20 with
 * source maps and type declarations. Each `tsup.config.ts` names its entries and what it does differently.
 *
 * @example
 * export default parleyBuild({ entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts' } });
 */
export function parleyBuild(options: Options = {}) {
  return defineConfig({
    entry: ['src/index.ts'],
    format: ['esm'],
    dts: withDeclarations,
    sourcemap: true,
    clean: withDeclarations,
    target: 'node20',
    ...options,
  });
}
