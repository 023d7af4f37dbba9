/** The `clients.*` methods of the control contract, bound to the clients service. */
import type { ClientsService } from '../clients-service.js';
import type { HandlerMap } from './control-handlers.js';

export function clientsHandlers(service: ClientsService): HandlerMap {
  return {
    'clients.list': () => service.list(),
    'clients.preview': (req) => service.preview(req.id, req.replace),
    'clients.connect': (req) => service.connect(req.id),
    'clients.disconnect': (req) => service.disconnect(req.id),
    'clients.importCandidates': (req) => service.importCandidates(req.id),
    'clients.import': (req) => service.import(req.id, req.names, req.replace),
    'clients.restore': (req) => service.restore(req.id),
    'clients.repair': () => service.repair(),
  };
}
