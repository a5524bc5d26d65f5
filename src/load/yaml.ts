import { createRequire } from 'node:module';
import type matterType from 'gray-matter';

type GrayMatter = typeof matterType & { readonly engines: { readonly yaml: { parse(text: string): unknown } } };

let grayMatter: GrayMatter | undefined;

/** gray-matter, with js-yaml's safe loader as its YAML engine, loaded on first use: a tools-only catalog never pays for it. */
export function matter(): GrayMatter {
  grayMatter ??= bundledMatter() ?? (createRequire(import.meta.url)('gray-matter') as GrayMatter);
  return grayMatter;
}

/**
 * gray-matter's JavaScript as the CLI bundle carries it, js-yaml's with it (scripts/bundle-cli.ts
 * `PURE_PACKAGES`), under the bin's code cache: pure JavaScript with no addon to match, so used
 * whatever version is installed. Evaluated only by this call. Undefined in ES modules (no `require`).
 */
function bundledMatter(): GrayMatter | undefined {
  return typeof require === 'function' ? (require('gray-matter') as GrayMatter) : undefined;
}

/** A js-yaml error as one line: its reason and `line N` (the YAML's first line being `firstLine`, `column M` when asked); else its message's first line. */
export function yamlProblem(error: unknown, { firstLine, column }: { readonly firstLine: number; readonly column: boolean }): string {
  const { reason, mark, message } = (error ?? {}) as { reason?: unknown; mark?: { line?: unknown; column?: unknown }; message?: unknown };
  if (typeof reason === 'string' && typeof mark?.line === 'number') {
    const line = mark.line + firstLine;
    if (!column) return `${reason} (line ${line})`;
    if (typeof mark.column === 'number') return `${reason} (line ${line}, column ${mark.column + 1})`;
  }
  return (String(message ?? error).split('\n', 1)[0] ?? '').replace(/:\s*$/, '');
}
