/**
 * A user name and password in a remote server's address become its `Authorization: Basic` header (fetch
 * refuses an address with a sign-in in it, and a header value is kept in the secret store): the rest of
 * the address stays as written, and an Authorization header set as well is refused, naming the address.
 */
import { describe, expect, it } from 'vitest';
import { ServerConfigSchema } from '../../shared/config.js';

const basic = (signIn: string) => `Basic ${Buffer.from(signIn, 'utf8').toString('base64')}`;

describe('a sign-in in a remote server’s address', () => {
  it.each([
    ['user and password', 'https://me:pw@mcp.example.com/mcp', 'https://mcp.example.com/mcp', 'me:pw'],
    ['percent-encoded parts', 'https://me%40corp:p%3Ass%2F@mcp.example.com/mcp?x=1#top', 'https://mcp.example.com/mcp?x=1#top', 'me@corp:p:ss/'],
    ['a token as the user name', 'http://tok_123@127.0.0.1:8080/mcp', 'http://127.0.0.1:8080/mcp', 'tok_123:'],
    ['non-ASCII', 'https://j%C3%B6rg:p%C3%A4ss@h.example/', 'https://h.example/', 'jörg:päss'],
  ])('%s: the address loses it and the server gets its Basic header', (_, url, bare, signIn) => {
    for (const type of ['http', 'sse'] as const) {
      const parsed = ServerConfigSchema.parse({ type, url, headers: { 'X-Other': 'kept' } });
      expect(parsed).toMatchObject({ type, url: bare, headers: { 'X-Other': 'kept', Authorization: basic(signIn) } });
    }
  });

  it('leaves an address without one as written, an @ in its path included', () => {
    const url = 'https://mcp.example.com/users/@me?q=a@b';
    expect(ServerConfigSchema.parse({ type: 'http', url })).toMatchObject({ url, headers: {} });
  });

  it('drops an empty sign-in (`https://@host`) without adding a header', () => {
    expect(ServerConfigSchema.parse({ type: 'http', url: 'https://@mcp.example.com/mcp' })).toMatchObject({
      url: 'https://mcp.example.com/mcp',
      headers: {},
    });
  });

  it('refuses a sign-in in the address beside an Authorization header, naming the address', () => {
    const parsed = ServerConfigSchema.safeParse({ type: 'http', url: 'https://me:pw@mcp.example.com/mcp', headers: { authorization: 'Bearer abc' } });
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues).toEqual([
      expect.objectContaining({ path: ['url'], message: expect.stringMatching(/Authorization header is set too/) }),
    ]);
  });
});
