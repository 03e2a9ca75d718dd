import { textAt, valueAt, type GithubPayload } from './github-payload';
import { actorOf, linkAt, repositoryLink, repositoryOf, sentence } from './github-words';

const SHOWN_COMMITS = 3;

function commitSummaries(commits: unknown[]): string | undefined {
  // A commit message's first line is its summary; the rest would flood the channel.
  const summaries = commits
    .slice(0, SHOWN_COMMITS)
    .map((commit) => textAt(commit, 'message', '(no message)', 500).split('\n')[0]!.slice(0, 100));
  if (summaries.length === 0) return undefined;
  const more = commits.length > SHOWN_COMMITS ? `; and ${commits.length - SHOWN_COMMITS} more` : '';
  return `${summaries.join('; ')}${more}`;
}

/**
 * `push`: commits to a branch (with the compare link), a forced push, a new or deleted branch, a pushed or
 * deleted tag.
 */
export function formatPush(payload: GithubPayload): string {
  const ref = textAt(payload, 'ref', 'a branch');
  const isTag = ref.startsWith('refs/tags/');
  const name = ref.replace(/^refs\/(heads|tags)\//, '');
  const actor = actorOf(payload);
  const repository = repositoryOf(payload);
  const kind = isTag ? 'tag' : 'branch';
  if (valueAt(payload, 'deleted') === true) {
    return sentence(
      `${actor} deleted ${kind} ${name} in ${repository}`,
      undefined,
      repositoryLink(payload),
    );
  }
  const compare = linkAt(payload, 'compare') ?? repositoryLink(payload);
  if (isTag) return sentence(`${actor} pushed tag ${name} to ${repository}`, undefined, compare);
  const commits = valueAt(payload, 'commits');
  const list = Array.isArray(commits) ? commits : [];
  const count = `${list.length} commit${list.length === 1 ? '' : 's'}`;
  const verb = valueAt(payload, 'forced') === true ? 'force-pushed' : 'pushed';
  const what =
    valueAt(payload, 'created') === true
      ? `${actor} created branch ${name} in ${repository}${list.length > 0 ? ` with ${count}` : ''}`
      : list.length === 0
        ? `${actor} ${verb} to ${name} in ${repository}`
        : `${actor} ${verb} ${count} to ${name} in ${repository}`;
  return sentence(what, commitSummaries(list), compare);
}
