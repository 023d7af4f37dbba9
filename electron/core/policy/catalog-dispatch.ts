/**
 * spillway__dispatch over the hub's catalog (issue 5): it reaches the tools in state 'dispatch', calls
 * them through the relay's own call path (policies, cache, spill, ledger) and reads spilled results.
 */
import type { Catalog } from '../catalog/catalog.js';
import type { CallOptions, OwnTool, Relay } from '../downstream/relay.js';
import type { DownstreamExtra, DownstreamSession } from '../downstream/session.js';
import { readResult } from '../spill/read-result.js';
import type { SpillStore } from '../spill/spill-store.js';
import type { TokenCounter } from '../tokens/token-counter.js';
import { createDispatch, type Dispatch } from './dispatch-tool.js';
import { spilledJsonLoader } from './spilled-json.js';

/** What a dispatch call runs in: the downstream request that called spillway__dispatch. */
export interface DispatchContext {
  session: DownstreamSession;
  extra: DownstreamExtra;
}

export interface CatalogDispatchDeps {
  catalog: Catalog;
  /** Read lazily: the relay is built after the dispatch. */
  relay: () => Pick<Relay, 'callUpstreamTool'>;
  store: SpillStore;
  counter: TokenCounter;
}

/** The dispatch tool and its OwnTool form (whose listed definition follows what is behind it). */
export function catalogDispatch(deps: CatalogDispatchDeps): { dispatch: Dispatch<DispatchContext>; ownTool: OwnTool } {
  const dispatch = createDispatch<DispatchContext>({
    tools: () =>
      deps.catalog.toolEntries('dispatch').map((e) => ({
        name: e.name,
        server: e.serverId,
        original: e.original,
        ...(e.exposed.title ? { title: e.exposed.title } : {}),
        ...(e.exposed.description !== undefined ? { description: e.exposed.description } : {}),
        inputSchema: e.exposed.inputSchema,
      })),
    // The same path as a direct call; the dispatch request's _meta carries its progress token along.
    call: (name, args, opts: CallOptions, ctx) =>
      deps.relay().callUpstreamTool(ctx.session, { name, arguments: args, ...(ctx.extra._meta ? { _meta: ctx.extra._meta } : {}) }, ctx.extra, opts),
    read: (args) => readResult(deps.store, deps.counter, args),
    loadSpilledJson: spilledJsonLoader(deps.store),
  });
  const ownTool: OwnTool = {
    get tool() {
      return dispatch.tool;
    },
    call: (args, ctx) => dispatch.handle(args, ctx),
  };
  return { dispatch, ownTool };
}
