/**
 * The one rule for "the server answered" (upstream-client.ts answeredByServer), used where calls served are
 * counted (UpstreamClient.callsAnswered) and where a failed ping tells a lost connection (connection-watch.ts).
 */
import { describe, expect, it } from 'vitest';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { answeredByServer } from '../../electron/core/upstream/upstream-client.js';

describe('answeredByServer', () => {
  it.each([
    ['an error the server sent (no such method)', new McpError(ErrorCode.MethodNotFound, 'Method not found'), true],
    ['an error the server sent (its own failure)', new McpError(ErrorCode.InternalError, 'boom'), true],
    ['a tool call the server refused', new McpError(ErrorCode.InvalidParams, 'bad arguments'), true],
    ['the connection closed before an answer', new McpError(ErrorCode.ConnectionClosed, 'Connection closed'), false],
    ['no answer in time', new McpError(ErrorCode.RequestTimeout, 'Request timed out'), false],
    ['a failed HTTP request', new Error('fetch failed'), false],
    ['a sign-in the server asks for', new UnauthorizedError('Unauthorized'), false],
    ['nothing', undefined, false],
  ])('%s', (_what, error, answered) => {
    expect(answeredByServer(error)).toBe(answered);
  });
});
