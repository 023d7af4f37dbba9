/** The `clients.*` methods of the control contract, bound to the clients service. */
import type { ClientsService } from '../clients/clients-service.js';
import { ControlError } from './control-error.js';
import type { HandlerMap } from './control-handlers.js';

/**
 * A "spillway" server the user made themselves is a conflict only they can settle in the client's settings
 * (the message says how). Matched by name: the clients library loads on first use.
 */
async function settledByUser<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if ((err as Error)?.name === 'ForeignEntryError') throw new ControlError('conflict', (err as Error).message);
    throw err;
  }
}

export function clientsHandlers(service: () => Promise<ClientsService>): HandlerMap {
  return {
    'clients.list': async () => (await service()).list(),
    'clients.preview': async (req) => settledByUser(async () => (await service()).preview(req.id, req.replace)),
    'clients.previewDisconnect': async (req) => settledByUser(async () => (await service()).previewDisconnect(req.id)),
    'clients.connect': async (req) => settledByUser(async () => (await service()).connect(req.id)),
    'clients.disconnect': async (req) => settledByUser(async () => (await service()).disconnect(req.id)),
    'clients.importCandidates': async (req) => (await service()).importCandidates(req.id),
    'clients.import': async (req) => settledByUser(async () => (await service()).import(req.id, req.names, req.replace)),
    'clients.restore': async (req) => (await service()).restore(req.id),
    'clients.repair': async () => (await service()).repair(),
  };
}
