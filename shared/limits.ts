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
