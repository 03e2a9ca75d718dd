import { SECRET_SETTINGS } from './settings-schema';

/**
 * A setting's value as it may be shown to an operator: secrets hidden entirely (not even their length), and the
 * password of a URL replaced by `****`.
 */
export function maskSetting(name: string, value: string): string {
  if (SECRET_SETTINGS.has(name)) return '[hidden]';
  try {
    const url = new URL(value);
    if (url.password) {
      url.password = '****';
      return url.toString();
    }
  } catch {
    // Not a URL: shown as is.
  }
  return value;
}
