/** The little of pacote and @npmcli/arborist that Spillway uses (neither ships its own types). */
declare module 'pacote' {
  export interface PacoteOptions {
    registry?: string;
    cache?: string;
    preferOnline?: boolean;
    fullMetadata?: boolean;
  }
  export interface Manifest {
    name: string;
    version: string;
    bin?: string | Record<string, string>;
  }
  export function manifest(spec: string, options?: PacoteOptions): Promise<Manifest>;
  const pacote: { manifest: typeof manifest };
  export default pacote;
}

declare module '@npmcli/arborist' {
  export interface ArboristOptions {
    path: string;
    registry?: string;
    cache?: string;
    ignoreScripts?: boolean;
    audit?: boolean;
    fund?: boolean;
    save?: boolean;
    preferOnline?: boolean;
  }
  export default class Arborist {
    constructor(options: ArboristOptions);
    reify(options?: { save?: boolean }): Promise<unknown>;
  }
}
