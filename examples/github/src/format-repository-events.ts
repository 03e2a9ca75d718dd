import { textAt, valueAt, type GithubPayload } from './github-payload';
import {
  actionOf,
  actorOf,
  linkAt,
  quoteAt,
  repositoryLink,
  repositoryOf,
  sentence,
} from './github-words';

/** `ping`: GitHub's hello when a webhook is created. */
export function formatPing(payload: GithubPayload): string {
  const target = valueAt(payload, 'repository')
    ? repositoryOf(payload)
    : textAt(payload, 'organization.login', 'this hook');
  const zen = textAt(payload, 'zen', '');
  const organization = textAt(payload, 'organization.login', '', 100);
  const organizationLink = organization
    ? `https://github.com/${encodeURIComponent(organization)}`
    : undefined;
  return sentence(
    `GitHub webhook connected for ${target}`,
    zen ? `"${zen}"` : undefined,
    repositoryLink(payload) ?? organizationLink,
  );
}

/** `create`: a branch or tag was created (GitHub sends no commits with it). */
export function formatCreate(payload: GithubPayload): string {
  const kind = textAt(payload, 'ref_type', 'ref', 20);
  const ref = textAt(payload, 'ref', '', 200);
  if (kind === 'repository')
    return sentence(
      `${actorOf(payload)} created repository ${repositoryOf(payload)}`,
      undefined,
      repositoryLink(payload),
    );
  return sentence(
    `${actorOf(payload)} created ${kind} ${ref} in ${repositoryOf(payload)}`,
    undefined,
    repositoryLink(payload, `tree/${ref}`),
  );
}

/** `delete`: a branch or tag was deleted. */
export function formatDelete(payload: GithubPayload): string {
  return sentence(
    `${actorOf(payload)} deleted ${textAt(payload, 'ref_type', 'ref', 20)} ${textAt(payload, 'ref', '', 200)} in ${repositoryOf(payload)}`,
    undefined,
    repositoryLink(payload),
  );
}

/** `fork`: `Octocoders forked Codertocat/Hello-World to Octocoders/Hello-World <link>`. */
export function formatFork(payload: GithubPayload): string {
  return sentence(
    `${actorOf(payload)} forked ${repositoryOf(payload)} to ${textAt(payload, 'forkee.full_name', 'a new repository')}`,
    undefined,
    linkAt(payload, 'forkee.html_url', 'repository.html_url'),
  );
}

/** `star`: starred or unstarred. */
export function formatStar(payload: GithubPayload): string {
  const verb = textAt(payload, 'action', 'created', 40) === 'deleted' ? 'unstarred' : 'starred';
  return sentence(
    `${actorOf(payload)} ${verb} ${repositoryOf(payload)}`,
    undefined,
    repositoryLink(payload),
  );
}

/**
 * `watch`: GitHub's older name for starring (its only action is `started`). A repository sends it beside `star`
 * for the same click, so a webhook should subscribe to one of the two.
 */
export function formatWatch(payload: GithubPayload): string {
  return sentence(
    `${actorOf(payload)} started watching ${repositoryOf(payload)}`,
    undefined,
    repositoryLink(payload),
  );
}

/** `release`: `Codertocat published release 0.0.1 in Codertocat/Hello-World <link>`. */
export function formatRelease(payload: GithubPayload): string {
  const tag = textAt(payload, 'release.tag_name', '?', 100);
  const name = textAt(payload, 'release.name', '', 150);
  const kind = valueAt(payload, 'release.prerelease') === true ? 'pre-release' : 'release';
  const action = textAt(payload, 'action', 'published', 40);
  const what =
    action === 'prereleased'
      ? `published pre-release ${tag}`
      : action === 'released'
        ? `released ${tag}`
        : `${actionOf(payload, 'published')} ${kind} ${tag}`;
  return sentence(
    `${actorOf(payload)} ${what} in ${repositoryOf(payload)}`,
    name && name !== tag ? name : undefined,
    linkAt(payload, 'release.html_url', 'repository.html_url'),
  );
}

/** `public`: a private repository was made public. */
export function formatPublic(payload: GithubPayload): string {
  return sentence(
    `${actorOf(payload)} made ${repositoryOf(payload)} public`,
    undefined,
    repositoryLink(payload),
  );
}

/** `member`: a collaborator added, removed or with changed permissions. */
export function formatMember(payload: GithubPayload): string {
  const member = textAt(payload, 'member.login', 'someone', 100);
  const action = textAt(payload, 'action', 'added', 40);
  const what =
    action === 'added'
      ? `added ${member} as a collaborator to`
      : action === 'removed'
        ? `removed ${member} as a collaborator from`
        : `changed the permissions of ${member} on`;
  return sentence(
    `${actorOf(payload)} ${what} ${repositoryOf(payload)}`,
    undefined,
    repositoryLink(payload),
  );
}

/** `repository`: created, renamed, archived, made public or private, transferred, deleted. */
export function formatRepository(payload: GithubPayload): string {
  const action = textAt(payload, 'action', '', 40);
  const repository = repositoryOf(payload);
  const what =
    action === 'publicized'
      ? `made ${repository} public`
      : action === 'privatized'
        ? `made ${repository} private`
        : `${actionOf(payload)} repository ${repository}`;
  return sentence(`${actorOf(payload)} ${what}`, undefined, repositoryLink(payload));
}

/** `gollum`: wiki pages created or edited. */
export function formatGollum(payload: GithubPayload): string {
  const pages = valueAt(payload, 'pages');
  const count = Array.isArray(pages) ? pages.length : 0;
  const first = `${textAt(payload, 'pages.0.action', 'edited', 20)} wiki page "${textAt(payload, 'pages.0.title', '?', 100)}"`;
  const more = count > 1 ? ` and ${count - 1} more` : '';
  return sentence(
    `${actorOf(payload)} ${first}${more} in ${repositoryOf(payload)}`,
    quoteAt(payload, 'pages.0.summary'),
    linkAt(payload, 'pages.0.html_url', 'repository.html_url'),
  );
}

/** `package`: a package version published or updated. */
export function formatPackage(payload: GithubPayload): string {
  const version = textAt(payload, 'package.package_version.version', '', 100);
  return sentence(
    `${actorOf(payload)} ${actionOf(payload, 'published')} package ${textAt(payload, 'package.name', '?', 100)}${version ? ` ${version}` : ''} in ${repositoryOf(payload)}`,
    undefined,
    linkAt(payload, 'package.html_url', 'repository.html_url'),
  );
}

/** `milestone`: created, closed, opened, edited, deleted. */
export function formatMilestone(payload: GithubPayload): string {
  return sentence(
    `${actorOf(payload)} ${actionOf(payload)} milestone "${textAt(payload, 'milestone.title', '?', 100)}" in ${repositoryOf(payload)}`,
    undefined,
    linkAt(payload, 'milestone.html_url', 'repository.html_url'),
  );
}

/** `branch_protection_rule`: a branch protection rule created, edited or deleted. */
export function formatBranchProtectionRule(payload: GithubPayload): string {
  return sentence(
    `${actorOf(payload)} ${actionOf(payload)} the branch protection rule "${textAt(payload, 'rule.name', '?', 100)}" in ${repositoryOf(payload)}`,
    undefined,
    repositoryLink(payload, 'settings/branches'),
  );
}
