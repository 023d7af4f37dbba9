/** The `clients.*` methods of the control contract, bound to the clients service. */
import type { ClientsService } from '../clients/clients-service.js';
import type { HandlerMap } from './control-handlers.js';

export function clientsHandlers(service: () => Promise<ClientsService>): HandlerMap {
  return {
    'clients.list': async () => (await service()).list(),
    'clients.preview': async (req) => (await service()).preview(req.id, req.replace),
    'clients.previewDisconnect': async (req) => (await service()).previewDisconnect(req.id),
    'clients.connect': async (req) => (await service()).connect(req.id),
    'clients.disconnect': async (req) => (await service()).disconnect(req.id),
    'clients.importCandidates': async (req) => (await service()).importCandidates(req.id),
    'clients.import': async (req) => (await service()).import(req.id, req.names, req.replace),
    'clients.restore': async (req) => (await service()).restore(req.id),
    'clients.repair': async () => (await service()).repair(),
    'clients.otherAccess': async (req) => (await service()).otherAccess(req.renew ?? false),
  };
}
