import { textAt, valueAt, type GithubPayload } from './github-payload';

/** Who did it: the sender, else the pusher, else `someone`. */
export function actorOf(payload: GithubPayload): string {
  return textAt(payload, 'sender.login', textAt(payload, 'pusher.name', 'someone', 100), 100);
}

/** The repository's `owner/name`, else `a repository`. */
export function repositoryOf(payload: GithubPayload): string {
  return textAt(payload, 'repository.full_name', 'a repository');
}

/**
 * The first web link found at the given paths. Only `https://` links count: a channel message must never carry
 * a `javascript:` or other scheme from a payload.
 */
export function linkAt(payload: unknown, ...paths: string[]): string | undefined {
  for (const path of paths) {
    const url = textAt(payload, path, '', 500);
    if (url.startsWith('https://') && !/\s/.test(url)) return url;
  }
  return undefined;
}

/** A link into the repository's web pages, e.g. `tree/main`; undefined without a repository URL. */
export function repositoryLink(payload: GithubPayload, suffix = ''): string | undefined {
  const base = linkAt(payload, 'repository.html_url');
  if (!base) return undefined;
  return suffix ? `${base}/${suffix.split('/').map(encodeURIComponent).join('/')}` : base;
}

/** The first line of a text (a comment's body, a commit message), quoted and cut to 120 characters. */
export function quoteAt(payload: unknown, path: string): string | undefined {
  const first = textAt(payload, path, '', 2000).split('\n')[0]!.trim();
  if (first === '') return undefined;
  return `"${first.length > 120 ? `${first.slice(0, 119)}…` : first}"`;
}

/** An action name as words: `review_requested` → `review requested`. */
export function actionOf(payload: GithubPayload, fallback = 'updated'): string {
  return textAt(payload, 'action', fallback, 40).replace(/_/g, ' ');
}

/**
 * One line from its parts: a sentence, an optional detail after a colon, an optional link at the end. Line breaks
 * inside parts become spaces, so the message stays one line.
 */
export function sentence(text: string, detail?: string, link?: string): string {
  const line = `${text}${detail ? `: ${detail}` : ''}${link ? ` ${link}` : ''}`;
  return line.replace(/\s*[\r\n]+\s*/g, ' ');
}

/** `issue #3` or `pull request #3`, for comments that GitHub files under issues. */
export function issueKindOf(payload: GithubPayload): string {
  return valueAt(payload, 'issue.pull_request') ? 'pull request' : 'issue';
}

/** A commit id shortened to 7 characters, as GitHub shows it. */
export function shortSha(payload: unknown, path: string): string {
  return textAt(payload, path, '?', 64).slice(0, 7);
}
