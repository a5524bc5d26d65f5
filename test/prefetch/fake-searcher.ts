import { abortError } from '../../src/errors.js';
import type { SearchHit, SearchRequest, Skill, SkillSearcher } from '../../src/types.js';

export interface PendingCall {
  readonly query: string;
  readonly request: SearchRequest | undefined;
  resolve(hits: readonly SearchHit[]): void;
  reject(error: unknown): void;
}

/**
 * A searcher whose calls stay pending until the test settles them. By default it honours the
 * SkillSearcher contract (rejects with an AbortError on abort); `ignoreAbort` simulates one
 * that does not, to prove late results are dropped anyway.
 */
export class ControlledSearcher implements SkillSearcher {
  readonly calls: PendingCall[] = [];
  active = 0;
  maxActive = 0;
  readonly #ignoreAbort: boolean;

  constructor(options: { ignoreAbort?: boolean } = {}) {
    this.#ignoreAbort = options.ignoreAbort ?? false;
  }

  search(query: string, request?: SearchRequest): Promise<readonly SearchHit[]> {
    this.active += 1;
    this.maxActive = Math.max(this.maxActive, this.active);
    return new Promise<readonly SearchHit[]>((resolve, reject) => {
      let done = false;
      const finish = (): boolean => {
        if (done) return false;
        done = true;
        this.active -= 1;
        request?.signal?.removeEventListener('abort', onAbort);
        return true;
      };
      const onAbort = (): void => {
        if (finish()) reject(abortError(request?.signal));
      };
      if (!this.#ignoreAbort) request?.signal?.addEventListener('abort', onAbort, { once: true });
      this.calls.push({
        query,
        request,
        resolve: (hits) => {
          if (finish()) resolve(hits);
        },
        reject: (error) => {
          if (finish()) reject(error);
        },
      });
    });
  }
}

/** Answers every query at once with the same hits. */
export function staticSearcher(hits: readonly SearchHit[]): SkillSearcher {
  return { search: async () => hits };
}

export function hit(skill: Skill, score: number): SearchHit {
  return { skill, score, via: ['dense'] };
}

/** Let queued microtasks and one macrotask turn run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
