/**
 * A new client for one upstream, its handlers wired to the hub's hooks: progress, log messages and
 * resource updates are passed on, a list change reloads its lists, and what the server asks (sampling,
 * elicitation, roots) is routed to a client.
 */
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ProgressNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { UpstreamClient } from './upstream-client.js';
import type { UpstreamHooks } from './upstream-hooks.js';

export function newUpstreamClient(
  id: string,
  version: string,
  hooks: UpstreamHooks,
  onListChanged: (client: UpstreamClient) => void,
): UpstreamClient {
  // Roots without listChanged: a client's roots/list_changed is not passed on, and roots/list is answered
  // only from the client whose call asks (call/upstream-requests.ts).
  const client = new UpstreamClient({ name: 'spillway', version }, { capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} } });
  // Our own progress handler: the SDK's per-request `onprogress` loses the last notification when it
  // arrives together with the result (TOOLCHAIN.md), so progress is relayed by token, immediately.
  client.setNotificationHandler(ProgressNotificationSchema, (n) => hooks.onProgress(id, n.params));
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => hooks.onLog(id, n.params));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => hooks.onResourceUpdated(id, n.params.uri));
  const refresh = () => onListChanged(client);
  client.setNotificationHandler(ToolListChangedNotificationSchema, refresh);
  client.setNotificationHandler(ResourceListChangedNotificationSchema, refresh);
  client.setNotificationHandler(PromptListChangedNotificationSchema, refresh);
  client.setRequestHandler(CreateMessageRequestSchema, (req, extra) => hooks.routeRequest(id, 'sampling', req, extra as never) as never);
  client.setRequestHandler(ElicitRequestSchema, (req, extra) => hooks.routeRequest(id, 'elicitation', req, extra as never) as never);
  client.setRequestHandler(ListRootsRequestSchema, (req, extra) => hooks.routeRequest(id, 'roots', req, extra as never) as never);
  return client;
}
