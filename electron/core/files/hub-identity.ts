/**
 * Who the hub of a data folder is, for the bridges that serve it (issue 13, items 1, 2 and 4).
 *
 * - `hub-id`: a random id made once per data folder (owner-only). A hub proves it belongs to the folder by
 *   answering a bridge's nonce with an HMAC keyed by the id; the id itself never crosses the wire, and a
 *   hub of another folder (another Spillway on the default port) cannot answer.
 * - `hub.json`: the hub that runs, or ran last, there: its process, endpoint, the config file it runs (a
 *   bridge starts its own hub on the same one), and why its last start failed.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeAtomically } from './atomic-file.js';

export const HUB_ID_FILE = 'hub-id';
export const HUB_RECORD_FILE = 'hub.json';
/** Where a hub's HTTP endpoint answers `?nonce=` with its proof (no token needed: the proof reveals nothing). */
export const HUB_IDENTITY_PATH = '/hub-identity';

/** The id of the data folder's hub, made on first use (exclusive create: two hubs starting at once agree). */
export async function loadOrCreateHubId(dataDir: string): Promise<string> {
  const existing = await readHubId(dataDir);
  if (existing) return existing;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const id = randomBytes(32).toString('base64url');
  try {
    await writeFile(join(dataDir, HUB_ID_FILE), `${id}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const theirs = await readHubId(dataDir);
    if (theirs) return theirs;
    throw new Error(`${join(dataDir, HUB_ID_FILE)} is not a Spillway hub id; remove it and start Spillway again.`, { cause: err });
  }
  await chmod(join(dataDir, HUB_ID_FILE), 0o600).catch(() => undefined);
  return id;
}

/** The data folder's hub id, or undefined when no hub has run there yet. */
export async function readHubId(dataDir: string): Promise<string | undefined> {
  const text = await readFile(join(dataDir, HUB_ID_FILE), 'utf8').catch(() => '');
  const id = text.trim();
  return id.length >= 16 ? id : undefined;
}

/** A fresh challenge for a hub. */
export function newNonce(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * Where a proof was asked: the HTTP port, or the socket. A proof is good for that place only, so one
 * relayed from this folder's hub by whatever holds another port does not pass.
 */
export type ProofPlace = { port: number } | 'socket';

const placeText = (place: ProofPlace) => (place === 'socket' ? 'socket' : `port ${place.port}`);

/** The hub's answer to `nonce` asked at `place`: only a hub that knows the id can give it. */
export function hubProof(id: string, nonce: string, place: ProofPlace): string {
  return createHmac('sha256', id)
    .update(`${nonce}\n${placeText(place)}`)
    .digest('base64url');
}

/** Whether `proof` answers `nonce` at `place` for the hub with this id. */
export function provesHub(id: string, nonce: string, place: ProofPlace, proof: unknown): boolean {
  if (typeof proof !== 'string') return false;
  const want = Buffer.from(hubProof(id, nonce, place));
  const got = Buffer.from(proof);
  return want.length === got.length && timingSafeEqual(want, got);
}

/** The hub that runs, or ran last, for a data folder. */
export interface HubRecord {
  state: 'running' | 'stopped' | 'failed';
  pid: number;
  /** The config file that hub runs (absolute): a bridge's own hub runs the same one. */
  configFile: string;
  /** Its MCP endpoint while running. */
  url?: string;
  /** Why its start failed (state 'failed'): the hub's own words, naming the config field and file. */
  error?: string;
  /** When the state was written (ISO). */
  at: string;
}

/** The record, or undefined when there is none (or it is unreadable: it is advice, never required). */
export async function readHubRecord(dataDir: string): Promise<HubRecord | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(join(dataDir, HUB_RECORD_FILE), 'utf8'));
    if (!value || typeof value !== 'object') return undefined;
    const r = value as Partial<HubRecord>;
    if (typeof r.state !== 'string' || typeof r.pid !== 'number' || typeof r.configFile !== 'string') return undefined;
    return r as HubRecord;
  } catch {
    return undefined;
  }
}

/** Replaces the record atomically (owner-only). */
export async function writeHubRecord(dataDir: string, record: HubRecord): Promise<void> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await writeAtomically(join(dataDir, HUB_RECORD_FILE), Buffer.from(`${JSON.stringify(record, null, 2)}\n`), 0o600);
}

/**
 * Whose hub answers at `url`: the one whose id this is, another (another data folder's Spillway, or not
 * Spillway at all), or nothing (issue 13, item 2). Asked before the token is sent: another Spillway on the
 * same port never sees this folder's token.
 */
export async function httpHubAt(url: string, id: string): Promise<'ours' | 'other' | 'nothing'> {
  const nonce = newNonce();
  let res: Response;
  try {
    res = await fetch(`${new URL(url).origin}${HUB_IDENTITY_PATH}?nonce=${nonce}`, { signal: AbortSignal.timeout(1500) });
  } catch {
    return 'nothing';
  }
  const answer = (await res.json().catch(() => undefined)) as { proof?: unknown } | undefined;
  return provesHub(id, nonce, { port: Number(new URL(url).port || 80) }, answer?.proof) ? 'ours' : 'other';
}
