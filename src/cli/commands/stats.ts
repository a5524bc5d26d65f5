import type { ParsedArgs } from '../args.js';
import { line, loadSnapshot, printJson } from '../context.js';
import { round, table } from '../format.js';
import type { CliIo } from '../io.js';
import { resolveSources } from '../sources.js';
import { cacheRoot } from '../../model-store/paths.js';
import { UsageStore } from '../../usage/usage-store.js';

/** What the hook recorded for this project: used skills, suggestions left unused, skills never used. */
export async function runStats(args: ParsedArgs, io: CliIo): Promise<number> {
  const sources = resolveSources(args.values, io, undefined, 'never');
  const store = UsageStore.open(cacheRoot(io.env), sources.cwd);
  // The hook reads such a file as empty and replaces it at its next record: "no usage recorded" alone would hide that.
  if (store.problem !== undefined) line(io.stderr, `skill-search: ${store.problem}; read as empty (the hook's next record replaces it)`);
  const snapshot = await loadSnapshot(sources);
  const entries = store.entries();
  const known = new Set(entries.filter(([, entry]) => entry.used >= 0.01).map(([name]) => name));
  const neverUsed = snapshot.skills.map((skill) => skill.name).filter((name) => !known.has(name));
  const skills = entries.map(([name, entry]) => ({
    name,
    used: round(entry.used, 2),
    suggested: round(entry.suggested, 2),
    ignored: round(entry.ignored, 2),
    ...(entry.lastUsed ? { lastUsed: new Date(entry.lastUsed).toISOString() } : {}),
  }));
  if (args.values.json === true) return printJson(io, { project: sources.cwd, file: store.file, skills, neverUsed });
  if (entries.length === 0) {
    line(io.stdout, `No usage recorded for ${sources.cwd} yet (the hook records it, in ${store.file}).`);
  } else {
    const rows = [
      ['skill', 'used', 'suggested', 'ignored', 'last used'],
      ...skills.map((skill) => [skill.name, String(skill.used), String(skill.suggested), String(skill.ignored), skill.lastUsed?.slice(0, 10) ?? '-']),
    ];
    for (const text of table(rows, [1, 2, 3, 4])) line(io.stdout, text);
    line(io.stdout, `(counts halve every 14 days; "ignored": suggested in a session that did not use it)`);
  }
  const shown = neverUsed.slice(0, 20);
  line(
    io.stdout,
    `Never used: ${neverUsed.length} of ${snapshot.skills.length} skills${shown.length > 0 ? `: ${shown.join(', ')}${neverUsed.length > shown.length ? ', …' : ''}` : ''}`,
  );
  return 0;
}
