import { textAt, type GithubPayload } from './github-payload';
import { commentVerb } from './format-issue-events';
import { actionOf, actorOf, linkAt, quoteAt, repositoryOf, sentence } from './github-words';

function discussionOf(payload: GithubPayload): string {
  return `discussion #${textAt(payload, 'discussion.number', '?')}`;
}

/** `discussion`: started, answered, edited, locked, transferred… */
export function formatDiscussion(payload: GithubPayload): string {
  const subject = discussionOf(payload);
  const action = textAt(payload, 'action', '', 40);
  const what =
    action === 'created'
      ? `started ${subject}`
      : action === 'answered'
        ? `marked an answer in ${subject}`
        : action === 'unanswered'
          ? `unmarked the answer in ${subject}`
          : action === 'category_changed'
            ? `moved ${subject} to "${textAt(payload, 'discussion.category.name', '?', 100)}"`
            : action === 'labeled'
              ? `labeled ${subject} with "${textAt(payload, 'label.name', '?', 50)}"`
              : `${actionOf(payload)} ${subject}`;
  return sentence(
    `${actorOf(payload)} ${what} in ${repositoryOf(payload)}`,
    textAt(payload, 'discussion.title', '(untitled)'),
    linkAt(
      payload,
      action === 'answered' ? 'answer.html_url' : 'discussion.html_url',
      'discussion.html_url',
      'repository.html_url',
    ),
  );
}

/** `discussion_comment`: a comment on a discussion. */
export function formatDiscussionComment(payload: GithubPayload): string {
  return sentence(
    `${actorOf(payload)} ${commentVerb(payload)} ${discussionOf(payload)} in ${repositoryOf(payload)}`,
    quoteAt(payload, 'comment.body') ?? textAt(payload, 'discussion.title', '(untitled)'),
    linkAt(payload, 'comment.html_url', 'discussion.html_url', 'repository.html_url'),
  );
}
