import { readFileSync } from 'node:fs';
import { notJson, unreadableFile } from '../errors.js';

/** Reads and parses a user's JSON file (a config); undefined when `missingOk` and it is missing. Errors: one line naming the file, unreadable or not JSON. */
export function readJsonFile(file: string, { missingOk = false }: { readonly missingOk?: boolean } = {}): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (missingOk && (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadableFile(file, error);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw notJson(file, error);
  }
}

/** Parses a JSON file the program may find missing or broken (a host's or a cache's): undefined on any problem. */
export function readJsonQuietly(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** `text` parsed as JSON, or undefined when it is not JSON (a line of someone else's file). */
export function parseJsonQuietly(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** A JSON object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A key path (a shape issue's, a zod issue's) as `a.b[0]`, for errors that name the key (`(top level)` for the root). */
export function keyPath(issuePath: readonly PropertyKey[]): string {
  return issuePath.length === 0
    ? '(top level)'
    : issuePath
        .map((key) => (typeof key === 'number' ? `[${key}]` : String(key)))
        .join('.')
        .replace(/\.\[/g, '[');
}
