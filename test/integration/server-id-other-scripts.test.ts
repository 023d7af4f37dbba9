/**
 * Names written in a script other than Latin ("日本語", "中文") all got the id `server`, `server-2`…, so a
 * client saw `server__tool` and `server-2__tool` and could not tell them apart (audit s16, servers by
 * hand, item 5). Each now gets `server-<code of its name>`: told apart, the same for the same name, and
 * within what a server id may hold. Ids already given are kept: a server saved as `server` stays so.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SERVER_ID_PATTERN, slugServerId, uniqueServerId } from '../../shared/config.js';
import { startTestHub, type TestHub } from '../support/hub-harness.js';

let hub: TestHub;
beforeAll(async () => {
  hub = await startTestHub({ version: 1, servers: { server: { type: 'http', url: 'http://127.0.0.1:9/mcp', enabled: false } } });
});
afterAll(() => hub?.stop());

const add = async (name: string) => {
  const answer = await hub.api<{ id: string }>('upstreams.add', { name, config: { type: 'http', url: 'http://127.0.0.1:9/mcp', enabled: false } });
  expect(answer.ok, answer.message).toBe(true);
  return answer.value!.id;
};

it('gives names in other scripts ids that tell them apart, and keeps the ids already given', async () => {
  const ids = [await add('日本語'), await add('中文'), await add('Сервер')];
  expect(new Set(ids).size).toBe(3);
  for (const id of ids) {
    expect(id).toMatch(/^server-[a-z0-9]+$/);
    expect(id).toMatch(SERVER_ID_PATTERN);
  }
  expect(ids[0]).toBe(slugServerId('日本語'));
  expect(Object.keys(hub.hub.config.servers).sort()).toEqual(['server', ...ids].sort());
});

it('makes the same id of the same name, and a free one when it is taken', () => {
  expect(slugServerId('日本語')).toBe(slugServerId(' 日本語 '));
  expect(uniqueServerId('日本語', [slugServerId('日本語')])).toBe(`${slugServerId('日本語')}-2`);
  expect(slugServerId('!!!')).toBe('server');
  expect(slugServerId('-')).toBe('server');
});
