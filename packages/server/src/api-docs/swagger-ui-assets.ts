import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The files of the `swagger-ui-dist` package that `/api/docs` serves, with their media types. */
export const SWAGGER_UI_FILES: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

let folder: string | undefined;

/** Reads one of {@link SWAGGER_UI_FILES} from the installed package; undefined for any other name. */
export async function readSwaggerUiFile(
  name: string,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (!Object.hasOwn(SWAGGER_UI_FILES, name)) return undefined;
  folder ??= dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return new Uint8Array(await readFile(join(folder, name)));
}
