/**
 * spillway__dispatch over the hub's catalog (issue 5): it lists and searches the tools in state
 * 'dispatch', describes and calls those and the ones listed directly, through the call path it is given
 * (policies, cache, spill, ledger), and reads spilled results. What it hands out is structurally an own
 * tool of the call path; policy/ never imports call/.
 */
import type { CallToolRequest, CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { HubEventInput } from '../../../shared/events.js';
import type { Catalog, ToolEntry } from '../catalog/catalog.js';
import type { SpillStore } from '../spill/spill-store.js';
import { createDispatch, type Dispatch, type DispatchEntry } from './dispatch-tool.js';
import { spilledJsonLoader } from './spilled-json.js';
import { refusalFor } from './tool-refusal.js';

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
  /** Why a tool named for a configured server that is not running cannot be called (the catalog lists none of its tools then). */
  notRunning?: (name: string) => { message: string; log: string; server: string } | undefined;
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
   * spillway__read_result itself, for the session that called dispatch, so a read through dispatch shows
   * a result as read_result does (in the encoding of the tool that made it, issue 18) and is counted for
   * the same client.
   */
  read: (args: Record<string, unknown>, session: Session) => Promise<CallToolResult>;
  /** The hub's events: a refused call writes its warning to the log. */
  emit: (event: HubEventInput) => void;
}

function dispatchEntry(e: ToolEntry): DispatchEntry {
  return {
    name: e.name,
    server: e.serverId,
    original: e.original,
    ...(e.exposed.title ? { title: e.exposed.title } : {}),
    ...(e.exposed.description !== undefined ? { description: e.exposed.description } : {}),
    inputSchema: e.exposed.inputSchema,
    ...(e.exposed.outputSchema ? { outputSchema: e.exposed.outputSchema } : {}),
    ...(e.exposed.annotations ? { annotations: e.exposed.annotations } : {}),
  };
}

/** The tool of this exposed name, else the one tool with this upstream name; undefined when none or several. */
function entryNamed(catalog: Catalog, name: string): ToolEntry | undefined {
  const exact = catalog.tool(name);
  if (exact) return exact;
  const byOriginal = catalog.toolEntries().filter((e) => e.original === name);
  return byOriginal.length === 1 ? byOriginal[0] : undefined;
}

/**
 * Why the tool named may not be called (undefined when it may or none has it); a refused call gets the
 * warning in the log a direct call's refusal gets (call/refusal.ts), a refused describe none.
 */
function refusalOf(
  deps: Pick<CatalogDispatchDeps<unknown, DispatchRequestExtra>, 'catalog' | 'emit' | 'notRunning'>,
  name: string,
  action: 'describe' | 'call',
) {
  const entry = entryNamed(deps.catalog, name);
  if (!entry) {
    // A stopped or failed server's tools are not listed: the model is told why, as a direct call is.
    const down = deps.notRunning?.(name);
    if (down && action === 'call') deps.emit({ type: 'log', level: 'warn', server: down.server, message: down.log });
    return down?.message;
  }
  const refusal = entry && refusalFor(entry);
  if (entry && refusal && action === 'call') {
    deps.emit({ type: 'log', level: 'warn', server: entry.serverId, message: `Refused a call to ${entry.name} through dispatch: ${refusal}` });
  }
  return refusal;
}

/** The dispatch tool and its own-tool form, `{tool, call}` (whose listed definition follows what is behind it). */
export function catalogDispatch<Session, Extra extends DispatchRequestExtra>(
  deps: CatalogDispatchDeps<Session, Extra>,
): {
  dispatch: Dispatch<DispatchContext<Session, Extra>>;
  ownTool: { readonly tool: Tool; call(args: Record<string, unknown>, ctx: DispatchContext<Session, Extra>): Promise<CallToolResult> };
} {
  const dispatch = createDispatch<DispatchContext<Session, Extra>>({
    tools: () => deps.catalog.toolEntries('dispatch').map(dispatchEntry),
    // A tool the cap moved out from behind dispatch (it is much used) stays callable through it.
    callable: () =>
      deps.catalog
        .toolEntries()
        .filter((e) => e.state === 'dispatch' || e.state === 'direct')
        .map(dispatchEntry),
    refusal: (name, action) => refusalOf(deps, name, action),
    // The same path as a direct call; the dispatch request's _meta carries its progress token along.
    call: (name, args, opts, ctx) =>
      deps.relay().callUpstreamTool(ctx.session, { name, arguments: args, ...(ctx.extra._meta ? { _meta: ctx.extra._meta } : {}) }, ctx.extra, opts),
    read: (args, ctx) => deps.read(args, ctx.session),
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
