import { textAt, valueAt, type GithubPayload } from './github-payload';

/** GitHub events this plugin turns into a message; others are acknowledged and not posted. */
export const FORMATTED_GITHUB_EVENTS = ['ping', 'push', 'issues', 'pull_request'] as const;

const SHOWN_COMMITS = 3;

function actorOf(payload: GithubPayload): string {
  return textAt(payload, 'sender.login', textAt(payload, 'pusher.name', 'someone'));
}

function repositoryOf(payload: GithubPayload): string {
  return textAt(payload, 'repository.full_name', 'a repository');
}

function formatPing(payload: GithubPayload): string {
  const target = valueAt(payload, 'repository')
    ? repositoryOf(payload)
    : textAt(payload, 'organization.login', 'this hook');
  const zen = textAt(payload, 'zen', '');
  return `GitHub webhook connected for ${target}${zen ? `: "${zen}"` : ''}`;
}

function formatPush(payload: GithubPayload): string {
  const branch = textAt(payload, 'ref', 'a branch').replace(/^refs\/(heads|tags)\//, '');
  const where = `${repositoryOf(payload)} (${branch})`;
  if (valueAt(payload, 'deleted') === true) return `${actorOf(payload)} deleted ${where}`;
  const commits = valueAt(payload, 'commits');
  const list = Array.isArray(commits) ? commits : [];
  const count = `${list.length} commit${list.length === 1 ? '' : 's'}`;
  // A commit message's first line is its summary; the rest would flood the channel.
  const summaries = list
    .slice(0, SHOWN_COMMITS)
    .map((commit) => textAt(commit, 'message', '(no message)', 500).split('\n')[0]!.slice(0, 100));
  const more = list.length > SHOWN_COMMITS ? `; and ${list.length - SHOWN_COMMITS} more` : '';
  const detail = summaries.length > 0 ? `: ${summaries.join('; ')}${more}` : '';
  return `${actorOf(payload)} pushed ${count} to ${where}${detail}`;
}

function formatIssue(payload: GithubPayload): string {
  const action = textAt(payload, 'action', 'updated', 40).replace(/_/g, ' ');
  const number = textAt(payload, 'issue.number', '?');
  const title = textAt(payload, 'issue.title', '(untitled)');
  const url = textAt(payload, 'issue.html_url', '', 500);
  return `${actorOf(payload)} ${action} issue #${number} in ${repositoryOf(payload)}: ${title}${url ? ` ${url}` : ''}`;
}

function formatPullRequest(payload: GithubPayload): string {
  const merged = valueAt(payload, 'pull_request.merged') === true;
  const action = textAt(payload, 'action', 'updated', 40).replace(/_/g, ' ');
  const verb = action === 'closed' && merged ? 'merged' : action;
  const number = textAt(payload, 'pull_request.number', textAt(payload, 'number', '?'));
  const title = textAt(payload, 'pull_request.title', '(untitled)');
  const head = textAt(payload, 'pull_request.head.ref', '', 100);
  const base = textAt(payload, 'pull_request.base.ref', '', 100);
  const branches = head && base ? ` (${head} → ${base})` : '';
  const url = textAt(payload, 'pull_request.html_url', '', 500);
  return `${actorOf(payload)} ${verb} pull request #${number} in ${repositoryOf(payload)}: ${title}${branches}${url ? ` ${url}` : ''}`;
}

const FORMATTERS: Record<
  (typeof FORMATTED_GITHUB_EVENTS)[number],
  (payload: GithubPayload) => string
> = { ping: formatPing, push: formatPush, issues: formatIssue, pull_request: formatPullRequest };

/**
 * A readable one-line message for a GitHub event, e.g. `alice pushed 3 commits to octo/repo (main): …`, or
 * undefined for an event kind this plugin does not post. Missing payload fields get neutral words, never an
 * exception: the payload is the sender's, not ours.
 */
export function formatGithubEvent(event: string, payload: GithubPayload): string | undefined {
  if (!Object.hasOwn(FORMATTERS, event)) return undefined;
  return FORMATTERS[event as keyof typeof FORMATTERS](payload);
}
