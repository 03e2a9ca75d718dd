import { textAt, type GithubPayload } from './github-payload';
import { actorOf, linkAt, repositoryLink, repositoryOf, sentence, shortSha } from './github-words';

/** A check or run conclusion as words: `succeeded`, `failed`, `was cancelled`… */
function outcomeOf(conclusion: string): string {
  switch (conclusion) {
    case 'success':
      return 'succeeded';
    case 'failure':
      return 'failed';
    case 'cancelled':
      return 'was cancelled';
    case 'timed_out':
      return 'timed out';
    case 'action_required':
      return 'needs action';
    case 'skipped':
      return 'was skipped';
    case 'neutral':
      return 'finished (neutral)';
    case 'stale':
      return 'went stale';
    case 'startup_failure':
      return 'failed to start';
    default:
      return 'completed';
  }
}

/** Only finished runs and checks are posted: `requested` and `in_progress` would double every message. */
function isCompleted(payload: GithubPayload): boolean {
  return textAt(payload, 'action', '', 40) === 'completed';
}

/** `workflow_run` (completed): `Workflow "CI" run #36 failed on main in octo/repo (triggered by alice) <link>`. */
export function formatWorkflowRun(payload: GithubPayload): string | undefined {
  if (!isCompleted(payload)) return undefined;
  const name = textAt(payload, 'workflow_run.name', textAt(payload, 'workflow.name', 'a workflow'));
  const run = textAt(payload, 'workflow_run.run_number', '');
  const branch = textAt(payload, 'workflow_run.head_branch', '', 100);
  const actor = textAt(payload, 'workflow_run.triggering_actor.login', actorOf(payload), 100);
  const outcome = outcomeOf(textAt(payload, 'workflow_run.conclusion', '', 40));
  return sentence(
    `Workflow "${name}"${run ? ` run #${run}` : ''} ${outcome}${branch ? ` on ${branch}` : ''} in ${repositoryOf(payload)} (triggered by ${actor})`,
    textAt(payload, 'workflow_run.display_title', '', 150) || undefined,
    linkAt(payload, 'workflow_run.html_url', 'repository.html_url'),
  );
}

/** `check_suite` (completed): the suite of one app on one commit. */
export function formatCheckSuite(payload: GithubPayload): string | undefined {
  if (!isCompleted(payload)) return undefined;
  const app = textAt(payload, 'check_suite.app.name', 'a check app', 100);
  const branch = textAt(payload, 'check_suite.head_branch', '', 100);
  const sha = shortSha(payload, 'check_suite.head_sha');
  return sentence(
    `Checks by ${app} ${outcomeOf(textAt(payload, 'check_suite.conclusion', '', 40))} on ${branch ? `${branch} (${sha})` : sha} in ${repositoryOf(payload)}`,
    undefined,
    repositoryLink(payload, `commit/${textAt(payload, 'check_suite.head_sha', '', 64)}`),
  );
}

/** `check_run` (completed): one check on one commit. */
export function formatCheckRun(payload: GithubPayload): string | undefined {
  if (!isCompleted(payload)) return undefined;
  const name = textAt(payload, 'check_run.name', 'a check', 100);
  const branch = textAt(payload, 'check_run.check_suite.head_branch', '', 100);
  const sha = shortSha(payload, 'check_run.head_sha');
  return sentence(
    `Check "${name}" ${outcomeOf(textAt(payload, 'check_run.conclusion', '', 40))} on ${branch ? `${branch} (${sha})` : sha} in ${repositoryOf(payload)}`,
    textAt(payload, 'check_run.output.title', '', 150) || undefined,
    linkAt(payload, 'check_run.html_url', 'repository.html_url'),
  );
}

/** `status`: a commit status from an outside CI. Pending statuses are not posted. */
export function formatStatus(payload: GithubPayload): string | undefined {
  const state = textAt(payload, 'state', 'unknown', 40);
  if (state === 'pending') return undefined;
  return sentence(
    `Status "${textAt(payload, 'context', 'default', 100)}" is ${state} for ${shortSha(payload, 'sha')} in ${repositoryOf(payload)}`,
    textAt(payload, 'description', '', 150) || undefined,
    linkAt(payload, 'target_url', 'commit.html_url', 'repository.html_url'),
  );
}

/** `deployment`: a deployment started. */
export function formatDeployment(payload: GithubPayload): string {
  const actor = textAt(payload, 'deployment.creator.login', actorOf(payload), 100);
  return sentence(
    `${actor} started deploying ${textAt(payload, 'deployment.ref', 'a ref', 100)} to ${textAt(payload, 'deployment.environment', 'an environment', 100)} in ${repositoryOf(payload)}`,
    textAt(payload, 'deployment.description', '', 150) || undefined,
    repositoryLink(payload, 'deployments'),
  );
}

/** `deployment_status`: a deployment's progress (`success`, `failure`, `in_progress`…). */
export function formatDeploymentStatus(payload: GithubPayload): string {
  const state = textAt(payload, 'deployment_status.state', 'unknown', 40).replace(/_/g, ' ');
  const environment = textAt(
    payload,
    'deployment_status.environment',
    textAt(payload, 'deployment.environment', 'an environment', 100),
    100,
  );
  return sentence(
    `Deployment of ${textAt(payload, 'deployment.ref', 'a ref', 100)} to ${environment} in ${repositoryOf(payload)}: ${state}`,
    textAt(payload, 'deployment_status.description', '', 150) || undefined,
    linkAt(
      payload,
      'deployment_status.environment_url',
      'deployment_status.target_url',
      'deployment_status.log_url',
    ) ?? repositoryLink(payload, 'deployments'),
  );
}

/** `deployment_review`: a deployment waits for, or got, a reviewer's decision. */
export function formatDeploymentReview(payload: GithubPayload): string {
  const action = textAt(payload, 'action', 'requested', 40);
  const environment = textAt(payload, 'environment', 'an environment', 100);
  const what =
    action === 'requested'
      ? `A deployment to ${environment} in ${repositoryOf(payload)} awaits review (requested by ${actorOf(payload)})`
      : `${actorOf(payload)} ${action} a deployment in ${repositoryOf(payload)}`;
  return sentence(what, undefined, linkAt(payload, 'workflow_run.html_url', 'repository.html_url'));
}

/** `workflow_dispatch`: someone started a workflow by hand. */
export function formatWorkflowDispatch(payload: GithubPayload): string {
  const ref = textAt(payload, 'ref', '', 100).replace(/^refs\/(heads|tags)\//, '');
  return sentence(
    `${actorOf(payload)} started workflow ${textAt(payload, 'workflow', 'a workflow', 200)}${ref ? ` on ${ref}` : ''} in ${repositoryOf(payload)}`,
    undefined,
    repositoryLink(payload, 'actions'),
  );
}
