/**
 * answersTold counts dispatch's own answers (list, search, describe, refusals) but not one to a request the
 * client cancelled, which it never sees, nor a passed-on call that threw, which the call path counted.
 */
import { expect, it } from 'vitest';
import { answersTold, createDispatch } from '../../electron/core/policy/dispatch-tool.js';

type Ctx = { extra: { signal: AbortSignal } };

function counted(call: () => Promise<never>) {
  const dispatch = createDispatch<Ctx>({
    tools: () => [{ name: 'fs__read', server: 'fs', inputSchema: { type: 'object' } }],
    call,
    read: async () => ({ content: [] }),
    loadSpilledJson: async () => ({}),
  });
  const told: unknown[] = [];
  const own = answersTold<Ctx>({ tool: dispatch.tool, call: (args, ctx) => dispatch.handle(args, ctx) }, (answer) => told.push(answer));
  return { own, told };
}
const live = (): Ctx => ({ extra: { signal: new AbortController().signal } });

it('counts an own answer, but not one to a cancelled request', async () => {
  const { own, told } = counted(async () => {
    throw new Error('not called');
  });
  await own.call({ action: 'list' }, live());
  expect(told).toHaveLength(1);
  await own.call({ action: 'list' }, { extra: { signal: AbortSignal.abort() } });
  expect(told).toHaveLength(1);
});

it('does not count a passed-on call that threw; the model still gets an error result', async () => {
  const { own, told } = counted(async () => {
    throw new Error('bad path given');
  });
  const answer = await own.call({ action: 'call', name: 'fs__read', arguments: {} }, live());
  expect(answer).toEqual({ content: [{ type: 'text', text: 'Calling "fs__read" failed: bad path given' }], isError: true });
  expect(told).toHaveLength(0);
});
