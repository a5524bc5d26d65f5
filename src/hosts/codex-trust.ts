/**
 * Codex runs a hook from hooks.json only once its user config.toml holds
 * `[hooks.state."<key>"] trusted_hash = "<hash>"` for it, as Codex's /hooks review writes it
 * (key and hash: docs/hosts-codex-trust.md). Only our own handler's entry is written or removed.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../util/hash.js';
import { isRecord } from '../util/json-file.js';
import { ourHookPositions, parseSettings, type JsonObject } from './json-settings.js';
import { parseToml, tomlString, valueAt, withTableKeys, type TomlTable } from './toml-lines.js';

const CODEX_EVENT_LABEL = 'user_prompt_submit';
/** Codex's timeout for a command hook that names none, in seconds. */
const CODEX_DEFAULT_TIMEOUT_S = 600;

export type TrustEntry = { readonly key: string; readonly hash: string };

const HANDLER_FIELDS = new Set(['type', 'command', 'timeout', 'async', 'statusMessage']);

/**
 * The hash Codex computes for one UserPromptSubmit command handler, or undefined for a handler
 * with fields whose normalisation we do not know (then we write no trust for it).
 */
export function codexHookHash(handler: JsonObject): string | undefined {
  if (Object.keys(handler).some((key) => !HANDLER_FIELDS.has(key))) return undefined;
  const { type, command, timeout, async: runsAsync = false, statusMessage } = handler;
  if (type !== 'command' || typeof command !== 'string' || command.trim() === '' || typeof runsAsync !== 'boolean') return undefined;
  if (timeout !== undefined && !(Number.isSafeInteger(timeout) && (timeout as number) >= 0)) return undefined;
  if (statusMessage !== undefined && typeof statusMessage !== 'string') return undefined;
  // Keys in sorted order, as Codex canonicalises the hook before hashing it.
  const normalised = {
    async: runsAsync,
    command,
    ...(statusMessage === undefined ? {} : { statusMessage }),
    timeout: Math.max(1, (timeout as number | undefined) ?? CODEX_DEFAULT_TIMEOUT_S),
    type: 'command',
  };
  return `sha256:${sha256Hex(JSON.stringify({ event_name: CODEX_EVENT_LABEL, hooks: [normalised] }))}`;
}

/** `file` with its folder's real path (Codex keys hooks by the canonical path of their file). */
function canonicalFile(file: string): string {
  let dir = path.resolve(path.dirname(file));
  const missing: string[] = [];
  for (;;) {
    try {
      return path.join(realpathSync(dir), ...missing, path.basename(file));
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return path.resolve(file);
      missing.unshift(path.basename(dir));
      dir = parent;
    }
  }
}

export function codexHookKey(hooksFile: string, group: number, handler: number): string {
  return `${canonicalFile(hooksFile)}:${CODEX_EVENT_LABEL}:${group}:${handler}`;
}

/** The trust entries for our handlers in `hooksText` (the hooks.json at `hooksFile`). */
export function trustEntriesFor(hooksFile: string, hooksText: string | undefined): TrustEntry[] {
  if (hooksText === undefined || hooksText.trim() === '') return [];
  return ourHookPositions(parseSettings(hooksText, hooksFile), hooksFile).flatMap(({ group, handler, entry }) => {
    const hash = codexHookHash(entry);
    return hash === undefined ? [] : [{ key: codexHookKey(hooksFile, group, handler), hash }];
  });
}

function statePath(key: string): string[] {
  return ['hooks', 'state', key];
}

function stateOf(parsed: TomlTable, key: string): TomlTable | undefined {
  const state = valueAt(parsed, statePath(key));
  return isRecord(state) ? state : undefined;
}

/** `text` (a Codex config.toml) with `entry` recorded; the same string when it already is. */
export function withTrustEntry(text: string, entry: TrustEntry, file: string): string {
  return withTableKeys(text, statePath(entry.key), { trusted_hash: entry.hash }, file, 'trust the hook in Codex (/hooks) instead');
}

/** `text` without `entry`'s trusted hash (and its table, when nothing else is in it); unchanged when the hash there is not `entry`'s. */
export function withoutTrustEntry(text: string, entry: TrustEntry, file: string): string {
  if (stateOf(parseToml(text, file), entry.key)?.trusted_hash !== entry.hash) return text;
  return withTableKeys(text, statePath(entry.key), { trusted_hash: undefined }, file, `remove [hooks.state.${tomlString(entry.key)}] by hand`);
}

/** The state entries under `hooksFile` that trust `hash` (stale ones after our hook moved or left). */
export function staleTrustEntries(text: string, hooksFile: string, hash: string, file: string): TrustEntry[] {
  const states = valueAt(parseToml(text, file), ['hooks', 'state']);
  if (!isRecord(states)) return [];
  const prefix = `${canonicalFile(hooksFile)}:${CODEX_EVENT_LABEL}:`;
  return Object.entries(states).flatMap(([key, state]) =>
    key.startsWith(prefix) && (state as TomlTable | undefined)?.trusted_hash === hash ? [{ key, hash }] : [],
  );
}

/** Whether Codex trusts each of our handlers: `trusted`, `untrusted` (no entry) or `modified` (another hash). */
export function trustStatus(configText: string | undefined, entry: TrustEntry, file: string): 'trusted' | 'untrusted' | 'modified' {
  const recorded = configText === undefined ? undefined : stateOf(parseToml(configText, file), entry.key)?.trusted_hash;
  return recorded === undefined ? 'untrusted' : recorded === entry.hash ? 'trusted' : 'modified';
}

/** The folder, `cwd` or one above it, whose trust in Codex's user config (`[projects."<dir>"] trust_level`) covers `cwd`; undefined when none does. */
export function trustedProject(userConfig: TomlTable, cwd: string): string | undefined {
  for (let dir = path.resolve(cwd); ; dir = path.dirname(dir)) {
    const level = valueAt(userConfig, ['projects', dir, 'trust_level']);
    if (level === 'trusted') return dir;
    if (level !== undefined || path.dirname(dir) === dir) return undefined;
  }
}
