/** A server's refused lists (`UpstreamInfo.listProblems`) in plain words, with what to do next. */
import type { ListProblem } from '../../../shared/api.js';

/** One sentence per problem: what apps miss, why, and what to try. */
export function listProblemText(problem: ListProblem): string {
  const said = problem.message ? ` It answered: ${problem.message}.` : '';
  if (problem.list === 'refresh') {
    return (
      `The server said its tools or other lists changed, but refused to list them again, so apps still see the lists from before.${said} ` +
      'Restart the server to read them afresh.'
    );
  }
  const what = problem.list === 'resources' ? 'resources (files and data it shares)' : 'prompts';
  return (
    `The server says it offers ${what} but refused to list them, so apps see none of its ${problem.list}. Its tools work as usual.${said} ` +
    `If you need its ${problem.list}, update the server or ask its maintainer; Restart tries again.`
  );
}
