/** The little of pacote and @npmcli/arborist that Spillway uses (neither ships its own types). */
declare module 'pacote' {
  export interface PacoteOptions {
    registry?: string;
    cache?: string;
    preferOnline?: boolean;
    fullMetadata?: boolean;
    /** Milliseconds one request may wait for an answer (npm's default is 5 minutes). */
    timeout?: number;
    /** The tarball's expected checksum (SRI), which also finds it in the cache. */
    integrity?: string;
  }
  export interface Manifest {
    name: string;
    version: string;
    bin?: string | Record<string, string>;
  }
  export function manifest(spec: string, options?: PacoteOptions): Promise<Manifest>;
  export function tarball(spec: string, options?: PacoteOptions): Promise<Buffer>;
  const pacote: { manifest: typeof manifest; tarball: typeof tarball };
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
    timeout?: number;
  }
  /** One package of the installed tree. */
  export interface ArboristNode {
    name: string;
    path: string;
    /** Where it was downloaded from (null for the project itself, links, and packages bundled inside another). */
    resolved: string | null;
    integrity: string | null;
    isRoot: boolean;
    isLink: boolean;
    inBundle: boolean;
    /** Its package.json as installed. */
    package: { scripts?: Record<string, string>; gypfile?: boolean };
  }
  export interface ArboristTree {
    inventory: Map<string, ArboristNode>;
  }
  export default class Arborist {
    constructor(options: ArboristOptions);
    /** Resolves to the tree as installed. */
    reify(options?: { save?: boolean }): Promise<ArboristTree>;
  }
}
