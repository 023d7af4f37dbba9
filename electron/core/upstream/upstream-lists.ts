/**
 * What an upstream offers, read in full: its tools, resources, resource templates and prompts, each list
 * followed through every page. Asked only for what the server's capabilities declare; some servers declare
 * resources or prompts they do not list, so only a failed tools/list fails the whole read.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, type Prompt, type Resource, type ResourceTemplate, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ConnectTimeoutError, type ConnectStep } from './connect-error.js';
import { answeredByServer } from './upstream-client.js';

export interface UpstreamLists {
  tools: Tool[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
  prompts: Prompt[];
}

/**
 * Every page of one list (at most 1000; a cursor that repeats ends it). A page the server does not answer
 * within `timeoutMs` fails the list with a ConnectTimeoutError naming the request.
 */
async function drain<T>(
  step: ConnectStep,
  timeoutMs: number,
  fetchPage: (cursor: string | undefined, options: { timeout: number }) => Promise<{ items: T[]; nextCursor?: string }>,
): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const { items, nextCursor } = await fetchPage(cursor, { timeout: timeoutMs }).catch((err: unknown) => {
      throw err instanceof McpError && err.code === ErrorCode.RequestTimeout ? new ConnectTimeoutError(step, timeoutMs) : err;
    });
    all.push(...items);
    if (!nextCursor || nextCursor === cursor) break;
    cursor = nextCursor;
  }
  return all;
}

/** A list the server answered with an error of its own ("Method not found"), reported and not failing the read. */
export type ListFailed = (method: 'resources/list' | 'prompts/list', error: unknown) => void;

/**
 * The server's lists, each request given `timeoutMs`. A server whose resource templates fail to list has
 * none; one that answers resources/list or prompts/list with an error has none of those either, told to
 * `onListFailed` once per list. A list that times out or loses the connection still fails the read.
 */
export async function loadLists(client: Client, timeoutMs: number, onListFailed: ListFailed = () => {}): Promise<UpstreamLists> {
  const caps = client.getServerCapabilities() ?? {};
  const emptyWhenRefused =
    <T>(method: 'resources/list' | 'prompts/list') =>
    (err: unknown): T[] => {
      if (!answeredByServer(err)) throw err;
      onListFailed(method, err);
      return [];
    };
  const [tools, resources, resourceTemplates, prompts] = await Promise.all([
    caps.tools
      ? drain('tools/list', timeoutMs, (cursor, o) => client.listTools({ cursor }, o).then((r) => ({ items: r.tools, nextCursor: r.nextCursor })))
      : [],
    caps.resources
      ? drain('resources/list', timeoutMs, (cursor, o) =>
          client.listResources({ cursor }, o).then((r) => ({ items: r.resources, nextCursor: r.nextCursor })),
        ).catch(emptyWhenRefused<Resource>('resources/list'))
      : [],
    caps.resources
      ? drain('resources/templates/list', timeoutMs, (cursor, o) =>
          client.listResourceTemplates({ cursor }, o).then((r) => ({ items: r.resourceTemplates, nextCursor: r.nextCursor })),
        ).catch(() => [] as ResourceTemplate[])
      : [],
    caps.prompts
      ? drain('prompts/list', timeoutMs, (cursor, o) =>
          client.listPrompts({ cursor }, o).then((r) => ({ items: r.prompts, nextCursor: r.nextCursor })),
        ).catch(emptyWhenRefused<Prompt>('prompts/list'))
      : [],
  ]);
  return { tools, resources, resourceTemplates, prompts };
}
