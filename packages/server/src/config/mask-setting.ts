import { isSecretName, redactText } from '../redaction/redact';
import { SECRET_SETTINGS } from './settings-schema';

/**
 * A setting's value as it may be shown to an operator: secrets hidden entirely (not even their length): the
 * settings the schema marks secret and every name the one redaction reads as secret (`SMTP_PASS`,
 * `PASSPHRASE`…); the password of a URL replaced by `****`; and whatever else the redaction finds in the value
 * (`?api_key=`, `Bearer …`).
 */
export function maskSetting(name: string, value: string): string {
  if (SECRET_SETTINGS.has(name) || isSecretName(name)) return '[hidden]';
  try {
    const url = new URL(value);
    if (url.password) {
      url.password = '****';
      // The user info stays as written (`****`); the rest (`?api_key=`) as the redaction leaves it.
      const shown = url.toString();
      const end = shown.indexOf('@') + 1;
      return shown.slice(0, end) + redactText(shown.slice(end));
    }
  } catch {
    // Not a URL: shown as its redaction leaves it.
  }
  return redactText(value);
}
