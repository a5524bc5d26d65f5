/**
 * `doctor search`: what an embedding developer, the CLI, the hook and the MCP server search with:
 * the store, the saved catalog, the model, the skill folders and a running server. Each check opens
 * what a search would (the store, `LiveIndex.openSnapshot`, `resolveEmbedder`, the catalog scan).
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ParsedValues } from '../args.js';
import { catalogOptions, liveIndexOptions, loadSnapshot, storeFile } from '../context.js';
import { shown } from '../format.js';
import { storeUnwritable } from '../store-access.js';
import type { CliIo } from '../io.js';
import { resolveIndexDir, resolveRetrieval, resolveSources } from '../sources.js';
import { SkillSearchError, errorMessage } from '../../errors.js';
import { type Check, type DoctorContext, settingsCheck } from '../../hosts/doctor.js';
import { resolveEmbedder } from '../../embed/resolve.js';
import { SkillSocketClient } from '../../integrations/socket-client.js';
import { socketPathFor } from '../../integrations/socket-protocol.js';
import { resolveCatalogOptions } from '../../load/options.js';
import { resolveSources as sourceDirs } from '../../load/sources.js';
import { modelsRoot } from '../../model-store/paths.js';
import { within } from '../../util/paths.js';
import { plural } from '../../util/text.js';

/** Broken files named in a line before the rest are counted. */
const NAMED_BROKEN = 5;
/** As `query`'s: a server too busy to accept this soon is reported as not answering. */
const CONNECT_TIMEOUT_MS = 200;

/** The search's checks for the flags' skills and model; a flag that names nothing throws, as in any command. */
export async function searchChecks(values: ParsedValues, io: CliIo, context: Pick<DoctorContext, 'cwd' | 'home'>): Promise<Check[]> {
  const show = (file: string) => shown(file, context.home);
  // A config that does not load stops every search: that alone is said.
  const settings = settingsCheck(context);
  if (settings !== undefined) return [settings];
  // As `index` and `query` read them (the demo rule `auto`, so a fallback to the demo skills is said); the saved index
  // checked is the one every command finds, whatever its demo rule (docs/store.md, "One key whoever saved it").
  const sources = resolveSources(values, io);
  const retrieval = resolveRetrieval(values, io);
  const checks = await skillChecks(sources, show);

  let modelId: string | undefined;
  try {
    const embedder = resolveEmbedder(retrieval.model, { downloadsDir: modelsRoot(io.env) });
    modelId = embedder.id;
    checks.push({ what: 'model', status: 'ok', detail: `${retrieval.model} (${embedder.dimensions} dimensions) is on this machine: searches need no network` });
  } catch (error) {
    checks.push({
      what: 'model',
      status: 'problem',
      detail: errorMessage(error),
      fix: "that, or --model use-lite (bundled; 'skill-search model list' names the others)",
    });
  }

  const file = storeFile(io.env);
  const store = await storeCheck(file, modelId, show);
  checks.push(store);
  if (store.status === 'ok' && modelId !== undefined) checks.push(await savedIndexCheck(sources, retrieval, io));
  checks.push(await serverCheck(resolveIndexDir(sources, retrieval, io.env)));
  return checks;
}

/** One line per skill folder read that exists or has a problem: its skills, and the files that do not load, named. */
async function skillChecks(sources: ReturnType<typeof resolveSources>, show: (file: string) => string): Promise<Check[]> {
  const snapshot = await loadSnapshot(sources);
  const options = resolveCatalogOptions(catalogOptions(sources));
  const roots = [...sourceDirs(options).map((source) => source.dir), ...options.toolsFiles];
  // Skill files are absolute (`mcp:` names are not); a tools file's line is named `<file>:<line>`.
  const under = (root: string, file: string) => (path.isAbsolute(file) && within(file, root)) || file.startsWith(`${root}:`);
  const errors = snapshot.diagnostics.filter((d) => d.severity === 'error' && d.code !== 'shadowed');
  const checks: Check[] = [];
  for (const root of new Set(roots)) {
    const broken = errors.filter((d) => under(root, d.path));
    if (!existsSync(root) && broken.length === 0) continue;
    const skills = snapshot.skills.filter((skill) => under(root, skill.path)).length;
    const itself = broken.find((d) => d.path === root);
    if (itself !== undefined) {
      checks.push({
        what: 'skills',
        status: 'warn',
        detail: `${show(root)}: ${itself.message}`,
        fix: 'create it, or stop naming it (flag, config or libraryDirs)',
      });
    } else if (broken.length > 0) {
      const named = broken.slice(0, NAMED_BROKEN).map((d) => show(d.path));
      const more = broken.length > NAMED_BROKEN ? `, and ${broken.length - NAMED_BROKEN} more` : '';
      const detail = `${show(root)}: ${plural(skills, 'skill')}, ${broken.length} broken: ${named.join(', ')}${more}`;
      checks.push({ what: 'skills', status: 'warn', detail, fix: "'skill-search validate' says why each does not load" });
    } else checks.push({ what: 'skills', status: 'ok', detail: `${show(root)}: ${plural(skills, 'skill')}` });
  }
  if (snapshot.skills.every((skill) => skill.source === 'demo')) {
    const detail = "no skill of yours found: 'query' falls back to this package's demo skills, the hook and the MCP server find none";
    checks.push({ what: 'skills', status: 'warn', detail, fix: 'pass --skills-dir DIR, or add skills to ~/.claude/skills' });
  }
  return checks;
}

/** The store opened as every search opens it: its file, size, and how many skills it holds vectors of for `modelId`. */
async function storeCheck(file: string, modelId: string | undefined, show: (file: string) => string): Promise<Check> {
  const locked = storeUnwritable(file);
  if (locked !== undefined) {
    const detail = `${show(file)} cannot be written (${show(locked.at)}: ${locked.code}): every search embeds the skills again and saves nothing`;
    return { what: 'store', status: 'problem', detail, fix: 'make it writable, or point SKILL_SEARCH_CACHE_DIR at a folder of yours' };
  }
  if (!existsSync(file)) {
    return { what: 'store', status: 'warn', detail: `none yet at ${show(file)}: the first search embeds every skill`, fix: "'skill-search index'" };
  }
  let store: import('../../store/sqlite-store.js').SqliteStore | undefined;
  try {
    // Loaded here: a missing SQLite build is this check's problem, not the command's.
    const { SqliteStore } = await import('../../store/sqlite-store.js');
    store = SqliteStore.open(file);
    // Vectors are keyed `<model id>#<text version>` (`SkillSearchEngine`).
    const held = modelId === undefined ? '' : `, ${plural(store.vectorCount(`${modelId}#`), 'skill')} embedded by ${modelId}`;
    const wal = `${file}-wal`;
    const bytes = statSync(file).size + (existsSync(wal) ? statSync(wal).size : 0);
    const reset = store.reset === undefined ? '' : ` (${store.reset})`;
    return { what: 'store', status: 'ok', detail: `${show(file)} opens: ${(bytes / 1024 / 1024).toFixed(1)} MB${held}${reset}` };
  } catch (error) {
    const fix = "if SQLite does not load, 'npm rebuild better-sqlite3' in the package; a damaged file can be deleted (the next search rebuilds it)";
    return { what: 'store', status: 'problem', detail: `${show(file)} does not open: ${errorMessage(error)}`, fix };
  } finally {
    store?.close();
  }
}

/** Whether a cold search (the hook's, `query`'s, the MCP server's first) finds these skills saved as they are now (`LiveIndex.openSnapshot`). */
async function savedIndexCheck(sources: ReturnType<typeof resolveSources>, retrieval: ReturnType<typeof resolveRetrieval>, io: CliIo): Promise<Check> {
  const { LiveIndex } = await import('../../integrations/live-index.js');
  try {
    const opened = await LiveIndex.openSnapshot(liveIndexOptions(sources, retrieval, io));
    if ('reason' in opened) {
      const detail = `these skills are not saved as they are now (${opened.reason}): a cold search embeds what changed first`;
      return { what: 'saved index', status: 'warn', detail, fix: "'skill-search index', or 'skill-search watch' keeps it current" };
    }
    const skills = opened.engine.size;
    await opened.close();
    return { what: 'saved index', status: 'ok', detail: `${plural(skills, 'skill')}, current: a cold search reads them without embedding` };
  } catch (error) {
    return { what: 'saved index', status: 'problem', detail: `does not open: ${errorMessage(error)}`, fix: "'skill-search index' rebuilds it" };
  }
}

/** A `watch` server for these skills and model, asked as `query` and the hook ask it. */
async function serverCheck(indexDir: string): Promise<Check> {
  let client: SkillSocketClient | undefined;
  try {
    client = await SkillSocketClient.connect(socketPathFor(indexDir), { connectTimeoutMs: CONNECT_TIMEOUT_MS });
    const { pid, version, skills } = await client.ping();
    return { what: 'server', status: 'ok', detail: `running (pid ${pid}, version ${version}, ${plural(skills, 'skill')}): hooks and queries ask it` };
  } catch (error) {
    if (error instanceof SkillSearchError && error.code === 'UNTRUSTED') {
      return { what: 'server', status: 'problem', detail: errorMessage(error), fix: 'remove that socket, or set SKILL_SEARCH_CACHE_DIR to a folder of yours' };
    }
    return {
      what: 'server',
      status: 'ok',
      detail: "none running for these skills and model: each search opens the store itself ('skill-search watch' keeps one warm)",
    };
  } finally {
    client?.close();
  }
}
