/**
 * spillway__dispatch over the hub's catalog (issue 5): it reaches the tools in state 'dispatch', calls
 * them through the call path it is given (policies, cache, spill, ledger) and reads spilled results.
 * What it hands out is structurally an own tool of the call path; policy/ never imports call/.
 */
import type { CallToolRequest, CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Catalog } from '../catalog/catalog.js';
import type { SpillStore } from '../spill/spill-store.js';
import { createDispatch, type Dispatch } from './dispatch-tool.js';
import { spilledJsonLoader } from './spilled-json.js';

/** The part of a request's `extra` dispatch uses: its `_meta` carries the progress token along. */
export interface DispatchRequestExtra {
  _meta?: CallToolRequest['params']['_meta'];
}

/** What a dispatch call runs in: the downstream request that called spillway__dispatch (opaque here). */
export interface DispatchContext<Session = unknown, Extra extends DispatchRequestExtra = DispatchRequestExtra> {
  session: Session;
  extra: Extra;
}

export interface CatalogDispatchDeps<Session, Extra extends DispatchRequestExtra> {
  catalog: Catalog;
  /** The call path's entry for upstream tools; read lazily (the relay is built after the dispatch). */
  relay: () => {
    callUpstreamTool(
      session: Session,
      params: CallToolRequest['params'],
      extra: Extra,
      options: { resultToSpill?: boolean },
    ): Promise<CallToolResult>;
  };
  store: SpillStore;
  /**
   * spillway__read_result itself, so a read through dispatch shows a result as read_result does (in the
   * encoding of the tool that made it, issue 18).
   */
  read: (args: Record<string, unknown>) => Promise<CallToolResult>;
}

/** The dispatch tool and its own-tool form, `{tool, call}` (whose listed definition follows what is behind it). */
export function catalogDispatch<Session, Extra extends DispatchRequestExtra>(
  deps: CatalogDispatchDeps<Session, Extra>,
): {
  dispatch: Dispatch<DispatchContext<Session, Extra>>;
  ownTool: { readonly tool: Tool; call(args: Record<string, unknown>, ctx: DispatchContext<Session, Extra>): Promise<CallToolResult> };
} {
  const dispatch = createDispatch<DispatchContext<Session, Extra>>({
    tools: () =>
      deps.catalog.toolEntries('dispatch').map((e) => ({
        name: e.name,
        server: e.serverId,
        original: e.original,
        ...(e.exposed.title ? { title: e.exposed.title } : {}),
        ...(e.exposed.description !== undefined ? { description: e.exposed.description } : {}),
        inputSchema: e.exposed.inputSchema,
        ...(e.exposed.outputSchema ? { outputSchema: e.exposed.outputSchema } : {}),
        ...(e.exposed.annotations ? { annotations: e.exposed.annotations } : {}),
      })),
    // The same path as a direct call; the dispatch request's _meta carries its progress token along.
    call: (name, args, opts, ctx) =>
      deps.relay().callUpstreamTool(ctx.session, { name, arguments: args, ...(ctx.extra._meta ? { _meta: ctx.extra._meta } : {}) }, ctx.extra, opts),
    read: (args) => deps.read(args),
    loadSpilledJson: spilledJsonLoader(deps.store),
  });
  const ownTool = {
    get tool() {
      return dispatch.tool;
    },
    call: (args: Record<string, unknown>, ctx: DispatchContext<Session, Extra>) => dispatch.handle(args, ctx),
  };
  return { dispatch, ownTool };
}
