import { closest, distance } from 'fastest-levenshtein';
import { KNOWN_SETTINGS } from './settings-schema';

/** Prefixes only Parley's settings use, so that an unknown name with one is surely a mistake. */
const PARLEY_PREFIXES = ['TEE_', 'MODEL_', 'OPENAI_', 'DSTACK_', 'WALLET_', 'SERVER_', 'PARLEY_'];

/**
 * Variables the project's own scripts set or read that are not settings of the server: the `start` script's
 * `PARLEY_SKIP_BUILD` (it runs the server with its own environment) and `PARLEY_NO_DTS` (the build), and the
 * test suites' switches. Never taken for a mistyped setting.
 */
export const PROJECT_VARIABLES: readonly string[] = [
  'PARLEY_SKIP_BUILD',
  'PARLEY_NO_DTS',
  'PARLEY_TEE_FULL_SWEEP',
  'PARLEY_TEE_DIFF_MUTATIONS',
  'PARLEY_MCP_LEAK_CHECK_TOKEN',
];

/** One unknown setting that looks like one of Parley's. */
export interface MistypedSetting {
  name: string;
  /** The known setting it is closest to. */
  suggestion: string;
}

/**
 * Finds names in `env` that are not Parley settings but look like one: a small edit away from a known name
 * (one edit for names of up to five letters, so that `HOME` is not taken for `HOST`, else a quarter of the
 * length) or carrying a prefix only Parley uses (`TEE_MOD`). The project's own variables
 * ({@link PROJECT_VARIABLES}) are not among them.
 */
export function findMistypedSettings(names: Iterable<string>): MistypedSetting[] {
  const known = new Set([...KNOWN_SETTINGS, ...PROJECT_VARIABLES]);
  const found: MistypedSetting[] = [];
  for (const name of names) {
    if (known.has(name) || name !== name.toUpperCase()) continue;
    const suggestion = closest(name, KNOWN_SETTINGS);
    const allowed = name.length <= 5 ? 1 : Math.floor(name.length / 4);
    const close = distance(name, suggestion) <= allowed;
    if (close || PARLEY_PREFIXES.some((prefix) => name.startsWith(prefix))) {
      found.push({ name, suggestion });
    }
  }
  return found;
}
