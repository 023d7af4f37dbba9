/**
 * A summary cached for a masked call gets the next call's placeholder tag on a hit: only its placeholders
 * do, so text the model itself wrote (a regex class such as [A-Za-z0-9_*], a glob) stays as written.
 */
import { afterAll, expect, it } from 'vitest';
import { compressResult } from '../../electron/core/compress/compress-result.js';
import { CompressionCache } from '../../electron/core/compress/compression-cache.js';
import type { ChatClient } from '../../electron/core/compress/chat-client.js';
import { TokenCounter } from '../../electron/core/tokens/token-counter.js';

const counter = new TokenCounter();
afterAll(() => counter.close());

const SUMMARY = 'User [EMAIL_1_TAG] may use names matching [A-Za-z0-9_*] only.';
const client: ChatClient = {
  model: 'm',
  complete: async (req) => {
    const tag = /\[EMAIL_1_([a-z0-9]{6})\]/.exec(req.messages.map((m) => m.content).join('\n'))![1]!;
    return { ok: true, text: SUMMARY.replace('TAG', tag), model: 'm', finishReason: 'stop', usage: null, latencyMs: 1 };
  },
};

function input(tag: string) {
  const text = `{"user":"[EMAIL_1_${tag}]","rule":"names match [A-Za-z0-9_]+ or *","pad":"${'x '.repeat(2000)}"}`;
  return { text, tool: 's/t', maxOutputTokens: 200, originalTokens: 3000, handle: 'h', readTool: 'spillway__read_result', placeholderTag: tag };
}

it('a cache hit keeps the summary text the model wrote', async () => {
  const cache = new CompressionCache();
  const first = await compressResult(input('aaaaaa'), { client, counter, cache });
  expect(first.ok && first.text).toContain('[A-Za-z0-9_*]');
  const second = await compressResult(input('bbbbbb'), { client, counter, cache });
  expect(second.ok && second.cached).toBe(true);
  expect(second.ok && second.text).toContain('[EMAIL_1_bbbbbb]');
  // Not "[A-Za-z0-9_bbbbbb]": only placeholders get the new call's tag.
  expect(second.ok && second.text).toContain('[A-Za-z0-9_*]');
});
