import type { ReadLines, StoredLines, ToolsCache, ToolsFileStat } from './tools-cache.js';

/** A {@link ToolsCache} whose writes wait for {@link flush} or {@link drop}: a cold search handing its catalog to an indexer skips them. */
export class DeferredToolsCache implements ToolsCache {
  readonly #cache: ToolsCache;
  #writes: (() => void)[] = [];

  constructor(cache: ToolsCache) {
    this.#cache = cache;
  }

  readSkills(key: string, stat: ToolsFileStat): Buffer | undefined {
    return this.#cache.readSkills(key, stat);
  }

  writeSkills(key: string, stat: ToolsFileStat, skills: Buffer): void {
    this.#writes.push(() => this.#cache.writeSkills(key, stat, skills));
  }

  readLines(key: string): ReadLines | undefined {
    return this.#cache.readLines(key);
  }

  writeLines(key: string, lines: StoredLines): void {
    this.#writes.push(() => this.#cache.writeLines(key, lines));
  }

  tablesOfSize(size: number, slack?: number): { readonly key: string; readonly stat: ToolsFileStat }[] {
    return this.#cache.tablesOfSize?.(size, slack) ?? [];
  }

  holdsText(key: string, text: Buffer): boolean {
    return this.#cache.holdsText?.(key, text) ?? false;
  }

  /** Makes the writes held so far, in order; later writes are held again. */
  flush(): void {
    const writes = this.#writes;
    this.#writes = [];
    for (const write of writes) write();
  }

  /** Forgets the writes held so far. */
  drop(): void {
    this.#writes = [];
  }
}
