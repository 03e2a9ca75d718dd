import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { createDatabase } from '../src/storage/create-database';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}

/**
 * Creating a PGlite database takes seconds; copying a migrated one takes milliseconds. One template is made per
 * run and every test copies it.
 */
export default async function setup(project: TestProject) {
  const dir = await mkdtemp(join(tmpdir(), 'parley-template-'));
  const database = createDatabase({ kind: 'pglite', dataDir: dir });
  await database.migrate();
  await database.close();
  project.provide('pgliteTemplate', dir);
  return async () => {
    await rm(dir, { recursive: true, force: true });
  };
}
