import { readFileSync } from 'node:fs';

/** The app's version, from its package.json (next to `dist/`). */
export function appVersion(): string {
  try {
    const text = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
    return (JSON.parse(text) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
