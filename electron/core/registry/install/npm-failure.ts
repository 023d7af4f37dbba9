/**
 * An npm install's failure in plain words: the errors of @npmcli/arborist, pacote and npm-registry-fetch
 * (a code, and for some a `type`, `pkgid` or `requiredBy`) become what happened and what to do next,
 * never the raw parser or system text.
 */
import { networkReason } from '../network-reason.js';

/** An install that failed, with a message that says what happened and what to do next. */
export class InstallError extends Error {
  constructor(
    message: string,
    /**
     * `refused`: the name or version is not one Spillway installs (install-names.ts); `damaged`: the
     * registry's answer could not be read; `disk_full`: the data folder's disk has no room.
     */
    readonly kind: 'not_found' | 'integrity' | 'unreachable' | 'no_program' | 'refused' | 'damaged' | 'disk_full' | 'failed',
  ) {
    super(message);
    this.name = 'InstallError';
  }
}

export const DISK_FULL = 'The disk is full: free some space, then add the server again.';

/** The fields npm's errors carry besides `code` (npm-registry-fetch, npm-pick-manifest, minipass-fetch). */
interface NpmErrorFields {
  code?: string;
  /** minipass-fetch's kind of FETCH_ERROR: `request-timeout`, `body-timeout`, `invalid-json`, … */
  type?: string;
  /** E404: the spec that was not found, e.g. `left-pad@^1.0.0`. */
  pkgid?: string;
  /** ETARGET: the range no published version fits (`name` then holds the package's name). */
  wanted?: string;
  name?: string;
  /** Arborist: where the failing spec was asked for, `.` for the project itself (the package Spillway installs). */
  requiredBy?: string;
}

const fieldsOf = (err: unknown): NpmErrorFields => (typeof err === 'object' && err !== null ? (err as NpmErrorFields) : {});

/** A dependency (not the package itself) that the registry does not have: its spec and who asks for it. */
function missingDependency(e: NpmErrorFields): { spec: string; by: string } | undefined {
  if (!e.requiredBy || e.requiredBy === '.') return undefined;
  const spec = e.code === 'ETARGET' ? (e.name && e.wanted ? `${e.name}@${e.wanted}` : undefined) : e.pkgid;
  // `node_modules/a/node_modules/@s/b` → `@s/b`
  const by = e.requiredBy.split('node_modules/').pop() ?? e.requiredBy;
  return spec ? { spec, by } : undefined;
}

const NETWORK_CODES =
  /^(ECONNREFUSED|ENOTFOUND|ETIMEDOUT|ECONNRESET|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|E(CONNECTION|IDLE|RESPONSE|TRANSFER)TIMEOUT)$/;

/**
 * The npm registry's address as messages show it: without the user name and password, or a query or
 * fragment (a company mirror's address may carry a token in any of them).
 */
export function registryOrigin(registry: string): string {
  try {
    const url = new URL(registry);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return withoutCredentials(registry);
  }
}

/** `scheme://user:password@host…` → `scheme://host…`, wherever an address appears in a text. */
function withoutCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi, '$1');
}

/** The plain words of an npm failure. */
export function installFailure(err: unknown, spec: string, registryUrl: string): InstallError {
  if (err instanceof InstallError) return err;
  const e = fieldsOf(err);
  const code = e.code ?? '';
  const registry = registryOrigin(registryUrl);
  const message = withoutCredentials(err instanceof Error ? err.message : String(err));
  if (code === 'ENOSPC' || code === 'EDQUOT') return new InstallError(DISK_FULL, 'disk_full');
  if (code === 'EINTEGRITY')
    return new InstallError(
      `The download of ${spec} did not match its checksum, so it may be damaged or tampered with. Nothing was installed. Try again later; if it keeps happening, check the npm registry in use (${registry}).`,
      'integrity',
    );
  if (code === 'E404' || code === 'ETARGET') {
    const dependency = missingDependency(e);
    if (dependency) {
      const via = `${spec} needs ${dependency.spec}${spec.startsWith(`${dependency.by}@`) ? '' : ` (for ${dependency.by})`}`;
      const lacks = code === 'ETARGET' ? 'has no version of it that fits' : 'does not have it';
      return new InstallError(
        `${via}, and the npm registry (${registry}) ${lacks}, so nothing was installed. Tell the server's publisher, or check the npm registry in use.`,
        'not_found',
      );
    }
    return new InstallError(
      `The npm registry (${registry}) has no package ${spec}. Check the name and version, or the npm registry in use.`,
      'not_found',
    );
  }
  // A package document that is not JSON, a download that is not a package archive (an HTML error page).
  if ((code === 'FETCH_ERROR' && e.type === 'invalid-json') || code === 'EJSONPARSE' || code.startsWith('TAR_'))
    return new InstallError(
      `The npm registry sent a damaged answer (for ${spec}, from ${registry}), so nothing was installed: try again later, or check a proxy.`,
      'damaged',
    );
  // FETCH_ERROR: minipass-fetch's own failures, a request that took longer than the timeout among them.
  if (NETWORK_CODES.test(code) || /^E5\d\d$/.test(code) || code === 'FETCH_ERROR') {
    const timedOut = code === 'FETCH_ERROR' && /timeout/.test(e.type ?? '');
    const reason = timedOut
      ? networkReason('ETIMEDOUT')
      : networkReason(code) || (code.startsWith('E5') ? `: it answered with a server error (${code.slice(1)})` : '');
    return new InstallError(`Could not reach the npm registry (${registry})${reason}. Check the internet connection, then try again.`, 'unreachable');
  }
  return new InstallError(`Could not install ${spec}: ${message}`, 'failed');
}
