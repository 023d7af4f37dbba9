/**
 * Limits shared by the hub and the bridge, so both entrances of a client pipe agree on one number.
 */

/**
 * The largest JSON-RPC message Spillway sends down a client's pipe (stdio, the bridge). SDK stdio clients
 * drop any message over 10 MiB and close the connection, so a tool result that would be bigger than this
 * is spilled for a pipe client whatever its policy says, and the bridge refuses any other message over it
 * with an error the client can read (issue 12: one limit, where there were 4 MiB and 8 MiB).
 */
export const CLIENT_PIPE_MAX_BYTES = 8 * 1024 * 1024;

/** Room left for the JSON-RPC envelope around a result when the hub checks it against the pipe limit. */
export const CLIENT_PIPE_ENVELOPE_BYTES = 64 * 1024;

/**
 * The largest JSON-RPC message Spillway takes from a client, at either entrance: an HTTP request body, or
 * one line on the bridge socket. Above what an upstream built on the MCP SDK reads itself (4 MiB over HTTP,
 * 10 MiB over stdio), so no request a server could take is refused; a message over it is refused whole
 * (never held in memory), with clientMessageTooLarge's words.
 */
export const CLIENT_MESSAGE_MAX_BYTES = 16 * 1024 * 1024;

/** Why a client's message over CLIENT_MESSAGE_MAX_BYTES was refused, and what to do instead. */
export function clientMessageTooLarge(bytes?: number): string {
  // Rounded up: a message just over the limit does not read as the limit itself.
  const size = bytes === undefined ? 'is over' : `is ${Math.ceil((bytes / 1024 / 1024) * 10) / 10} MiB, over`;
  return (
    `Message too large: it ${size} the ${CLIENT_MESSAGE_MAX_BYTES / 1024 / 1024} MiB Spillway takes from a client in one message. ` +
    'Pass large data by reference (a file path or URL the tool can read), or split it over several calls.'
  );
}
