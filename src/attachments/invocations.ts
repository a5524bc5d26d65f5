/** What was invoked in a conversation: counts per name (for the listing budget) and the bodies injected (for compaction). */
import type { Skill } from '../types.js';

export interface InvocationRecord {
  readonly name: string;
  readonly source: Skill['source'];
  readonly path: string;
  readonly args: string | undefined;
  /** The text returned to the model as the tool result. */
  readonly content: string;
  /** `Date.now()` at invocation. */
  readonly at: number;
}

export class InvocationLog {
  readonly #counts = new Map<string, number>();
  /** Latest record per name; Map order is first-invocation order. */
  readonly #latest = new Map<string, InvocationRecord>();
  readonly #listeners = new Set<(record: InvocationRecord) => void>();

  record(record: InvocationRecord): void {
    this.#counts.set(record.name, (this.#counts.get(record.name) ?? 0) + 1);
    this.#latest.set(record.name, record);
    for (const listener of this.#listeners) listener(record);
  }

  /** Invocation counts per name, for `SkillListingOptions.usage`. */
  get usage(): ReadonlyMap<string, number> {
    return this.#counts;
  }

  count(name: string): number {
    return this.#counts.get(name) ?? 0;
  }

  /** Names invoked so far; discovery does not suggest these again. */
  names(): Set<string> {
    return new Set(this.#latest.keys());
  }

  /** One record per invoked skill (its latest invocation), in first-invocation order. */
  invoked(): readonly InvocationRecord[] {
    return [...this.#latest.values()];
  }

  /** Telemetry hook. Returns an unsubscribe function. */
  onRecord(listener: (record: InvocationRecord) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
