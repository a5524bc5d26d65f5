/**
 * Captured requests as fixtures: machine-specific text (this HOME, this clone, the stub's port,
 * dates, ids, the OS version) replaced by placeholders, so a capture reads the same on any machine.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ROOT } from '../../cli/helpers.js';

export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** Set to write the fixtures from this run instead of comparing with them. */
export const UPDATE_ENV = 'UPDATE_HOST_FIXTURES';

export function placeholders(home: string, stubUrl: string): (text: string) => string {
  const swaps: [RegExp | string, string][] = [
    [home, '$HOME'],
    // Claude Code names a project's folder after its path with every other character as '-'.
    [home.replace(/[^a-zA-Z0-9]/g, '-'), '$HOME_SLUG'],
    [ROOT.replace(/\/$/, ''), '$REPO'],
    [stubUrl, '$STUB_URL'],
    [/cc_version=([\d.]+?)\.[0-9a-f]+;/g, 'cc_version=$1.$HASH;'],
    [/OS Version: [^\n]*/g, 'OS Version: $OS'],
    [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g, '$UUID'],
    [/\b[0-9a-f]{64}\b/g, '$HEX64'],
    [/\b\d{4}-\d{2}-\d{2}\b/g, '$DATE'],
    [/"turn_started_at_unix_ms":\d+/g, '"turn_started_at_unix_ms":0'],
  ];
  return (text) => swaps.reduce((out, [from, to]) => (typeof from === 'string' ? out.replaceAll(from, to) : out.replace(from, to)), text);
}

/** `value` with `swap` applied to every string in it. */
export function mapStrings(value: unknown, swap: (text: string) => string): unknown {
  if (typeof value === 'string') return swap(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, swap));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, swap)]));
  return value;
}

/** Writes the fixture when updating; otherwise returns its text (undefined when it does not exist). */
export function fixture(name: string, text: string): string | undefined {
  const file = FIXTURES_DIR + name;
  if (process.env[UPDATE_ENV] === '1') writeFileSync(file, text);
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}
