import os from 'node:os';
import path from 'node:path';

export type Env = Readonly<Record<string, string | undefined>>;

/** The hub `model pull` talks to unless `SKILL_SEARCH_HF_ENDPOINT` names a mirror. */
export const DEFAULT_HF_ENDPOINT = 'https://huggingface.co';

/** `$SKILL_SEARCH_CACHE_DIR`, else `$XDG_CACHE_HOME/skill-search`, else `~/.cache/skill-search`: indexes and models live here. */
export function cacheRoot(env: Env): string {
  if (env.SKILL_SEARCH_CACHE_DIR) return path.resolve(env.SKILL_SEARCH_CACHE_DIR);
  if (env.XDG_CACHE_HOME) return path.join(path.resolve(env.XDG_CACHE_HOME), 'skill-search');
  return path.join(env.HOME || env.USERPROFILE || os.homedir(), '.cache', 'skill-search');
}

/** Downloaded models: `<cache root>/models/<preset id>/`. */
export function modelsRoot(env: Env): string {
  return path.join(cacheRoot(env), 'models');
}

/** The hub base URL without a trailing slash. */
export function hubEndpoint(env: Env): string {
  const raw = env.SKILL_SEARCH_HF_ENDPOINT?.trim();
  return (raw === undefined || raw === '' ? DEFAULT_HF_ENDPOINT : raw).replace(/\/+$/, '');
}
