import { textAt, type GithubPayload } from './github-payload';
import { actionOf, linkAt, repositoryOf, sentence } from './github-words';

/** `dependabot_alert`: a vulnerable dependency found, fixed, dismissed… */
export function formatDependabotAlert(payload: GithubPayload): string {
  const severity = textAt(payload, 'alert.security_advisory.severity', '', 20);
  const dependency = textAt(payload, 'alert.dependency.package.name', '', 100);
  return sentence(
    `Dependabot alert #${textAt(payload, 'alert.number', '?')}${severity ? ` (${severity})` : ''}${dependency ? ` for ${dependency}` : ''} ${actionOf(payload)} in ${repositoryOf(payload)}`,
    textAt(payload, 'alert.security_advisory.summary', '', 200) || undefined,
    linkAt(payload, 'alert.html_url', 'repository.html_url'),
  );
}

/** `code_scanning_alert`: a code scanning finding created, fixed, closed or reopened. */
export function formatCodeScanningAlert(payload: GithubPayload): string {
  const severity = textAt(payload, 'alert.rule.severity', '', 20);
  return sentence(
    `Code scanning alert #${textAt(payload, 'alert.number', '?')}${severity ? ` (${severity})` : ''} ${actionOf(payload)} in ${repositoryOf(payload)}`,
    textAt(payload, 'alert.rule.description', '', 200) || undefined,
    linkAt(payload, 'alert.html_url', 'repository.html_url'),
  );
}

/** `secret_scanning_alert`: a leaked secret found or resolved. */
export function formatSecretScanningAlert(payload: GithubPayload): string {
  return sentence(
    `Secret scanning alert #${textAt(payload, 'alert.number', '?')} (${textAt(payload, 'alert.secret_type_display_name', textAt(payload, 'alert.secret_type', 'secret', 100), 100)}) ${actionOf(payload)} in ${repositoryOf(payload)}`,
    undefined,
    linkAt(payload, 'alert.html_url', 'repository.html_url'),
  );
}
