/** The shapes that cross the pipeline's stages (load → embed → index → search → prefetch/attachments → CLI). */

/** Where a skill came from: the article's `LoadedFrom`, plus `codex`, `library` (reached only through search), `demo` (when nothing else exists). */
export const LOADED_FROM = ['bundled', 'plugin', 'managed', 'skills', 'commands_DEPRECATED', 'mcp', 'codex', 'library', 'demo'] as const;
export type LoadedFrom = (typeof LOADED_FROM)[number];

/** The agent hosts: each has a prompt hook, an install, a listing profile and doctor checks. */
export const HOSTS = ['claude-code', 'codex'] as const;
export type HostName = (typeof HOSTS)[number];
/** A host's name in messages. */
export const HOST_TITLES: Readonly<Record<HostName, string>> = Object.freeze({ 'claude-code': 'Claude Code', codex: 'Codex' });

export const EFFORTS = ['low', 'medium', 'high'] as const;
export type Effort = (typeof EFFORTS)[number];

/** One loaded skill, immutable. `body` is injected only when the skill is invoked. */
export interface Skill {
  /** Skill name as the model sees it (`folder:name` for nested legacy commands). */
  readonly name: string;
  readonly description: string;
  readonly whenToUse?: string;
  /** The frontmatter key `whenToUse` came from: Claude Code reads only `when_to_use` (absent for other sources). */
  readonly whenToUseKey?: 'when_to_use' | 'whenToUse';
  /** Words listed for search in frontmatter `tags`, `keywords`, `aliases` or `triggers` (searched lexically, never shown). */
  readonly keywords?: readonly string[];
  readonly effort?: Effort;
  /** Frontmatter `hooks`, kept as inert data. Never executed. */
  readonly hooks?: unknown;
  /** Who may invoke it, when a host rule restricts that (absent: the model and the user). See `src/load/invocation.ts`. */
  readonly invocation?: SkillInvocation;
  readonly source: LoadedFrom;
  /** Shadowing rank (SPEC §2: 1 = bundled … 8 = MCP); lower wins, then load order. */
  readonly rank: number;
  /** Absolute file path, or a URI-like id for non-file skills (`mcp:<server>/<name>`, `tools:<file>#<id>`). */
  readonly path: string;
  /** Stable identifier: the `id` from a tools JSONL line, otherwise the name. */
  readonly id: string;
  /** Markdown body without frontmatter. */
  readonly body: string;
  /** Estimated tokens of `name\ndescription\nwhenToUse` (≈ 4 chars per token). */
  readonly tokenEstimate: number;
  /** sha256 (hex) of the indexed text (`name\ndescription\nwhenToUse`): the embedding cache key. */
  readonly contentHash: string;
}

/** Who may invoke a skill, from `disable-model-invocation`, Codex's `allow_implicit_invocation` or `user-invocable`. */
export interface SkillInvocation {
  /** False: never offered to the model (listing, hook, MCP search, prefetch), even when named exactly; `query` still finds it. */
  readonly model: boolean;
  /** False: not in the user's slash menu; the model still sees it. */
  readonly user: boolean;
  /** The settings that decided it, as written (`disable-model-invocation: true`). */
  readonly reasons: readonly string[];
}

/** Problem kinds found while loading; rendered to words in one place (`formatDiagnostic`). */
export const DIAGNOSTIC_CODES = [
  'bad-yaml',
  'missing-description',
  'bad-field',
  'bad-effort',
  'binary',
  'unreadable',
  'symlink-loop',
  'too-large',
  'bad-tools-line',
  'shadowed',
] as const;
export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[number];

export interface Diagnostic {
  readonly code: DiagnosticCode;
  /** The file (or source id) the problem is in. */
  readonly path: string;
  /** Human-readable reason, without the path (the renderer adds it). */
  readonly message: string;
  /** `error`: the skill was not loaded. `warning`: loaded with a fix-up (e.g. effort ignored, body capped). */
  readonly severity: 'error' | 'warning';
}

/** A name collision: `loser` lost to `winner` (first-wins by rank). */
export interface ShadowedSkill {
  readonly name: string;
  readonly winner: { readonly path: string; readonly source: LoadedFrom; readonly rank: number };
  readonly loser: { readonly path: string; readonly source: LoadedFrom; readonly rank: number };
}

/** The merged, shadowed, deduplicated catalog for one working directory. */
export interface CatalogSnapshot {
  readonly cwd: string;
  /** Winning skills, highest rank first (bundled … MCP). */
  readonly skills: readonly Skill[];
  readonly shadowed: readonly ShadowedSkill[];
  /** How many skills the config's `include` / `exclude` left out (0 without either). */
  readonly excluded: number;
  readonly diagnostics: readonly Diagnostic[];
  /** Monotonic; bumps on every invalidation that changed the catalog. */
  readonly generation: number;
  /** Identity of what the catalog was built from (`src/load/source-stamp.ts`); absent when a tools file had no stat. */
  readonly sourceStamp?: string;
  /** The same without the working folder (`portableStamp`): equal for folders that load the same catalog. */
  readonly portableStamp?: string;
}

/** Retrieval mode (SPEC §7 `--mode`). */
export const SEARCH_MODES = ['hybrid', 'dense', 'lexical'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** How readily a search shows nothing: `balanced` (default), `strict`, `off` (always the top k), or the relevance in [0, 1] a hit needs. */
export const ABSTAIN_LEVELS = ['strict', 'balanced', 'off'] as const;
export type AbstainLevel = (typeof ABSTAIN_LEVELS)[number];
export type AbstainSetting = AbstainLevel | number;

export interface SearchHit {
  readonly skill: Skill;
  /** Estimated probability in [0, 1] that the skill fits the message (docs/retrieval.md); 1 when named exactly. Hits come best first. */
  readonly score: number;
  /** Why it matched (for debugging / --json): which rankers contributed. */
  readonly via: readonly ('exact' | 'lexical' | 'dense')[];
  /** Shown below the threshold only beside a hit that reached it; drop it with that hit ({@link withoutLoneCompanions}). */
  readonly companion?: true;
  /** The evidence behind this hit; present only when the search asked for it (`SearchRequest.explain`). */
  readonly why?: HitExplanation;
}

/** The fields BM25 searches, in the order explanations list them. */
export const LEXICAL_FIELDS = ['name', 'whenToUse', 'keywords', 'description', 'body', 'glosses'] as const;
export type LexicalField = (typeof LEXICAL_FIELDS)[number];

/** Why a hit was shown (`query --explain`, `--json` `why`, MCP): the numbers the engine used; parts a mode skips are absent. */
export interface HitExplanation {
  /** Index terms (stemmed) the query matched per lexical field, prefix and typo matches included; empty without a BM25 match. */
  readonly matched: { readonly [field in LexicalField]?: readonly string[] };
  /** Raw BM25 score and the share of the query's distinct terms matched (lexical and hybrid). */
  readonly lexical?: { readonly bm25: number; readonly coverage: number };
  /** Cosine of the message's vector with the skill's, raw and after centring on the catalog mean (dense and hybrid). */
  readonly dense?: { readonly cosine: number; readonly centered: number };
  /** The score the mode ordered candidates by: the hybrid fusion score, the centred cosine, or BM25 relative to the first hit's. */
  readonly order?: number;
  /** P(the catalog has a skill for this message), shared by every hit of the query. */
  readonly answerable?: number;
  /** P(this hit fits | the message has a fitting skill); `score` = answerable × fits. */
  readonly fits?: number;
  /** The relevance a hit needed to be shown in this search (0 with abstention off). */
  readonly threshold: number;
  /** `score` ≥ `threshold`. */
  readonly passed: boolean;
  /** The message names this skill exactly: shown first with score 1, not scored by the model. */
  readonly named?: true;
  /** The message was routed through the dictionary: its language and the English rendering BM25 searched. */
  readonly translation?: { readonly language: string; readonly english: string };
}

export interface SearchRequest {
  readonly k?: number;
  readonly mode?: SearchMode;
  readonly signal?: AbortSignal;
  /** `false` (= `'off'`) returns the top k; `true` or absent uses the searcher's default. */
  readonly abstain?: boolean | AbstainSetting;
  /** Attach a {@link HitExplanation} to every hit (`SearchHit.why`). @default false */
  readonly explain?: boolean;
}

/** Retrieval as its consumers see it; rejects with an AbortError when `signal` aborts. */
export interface SkillSearcher {
  search(query: string, request?: SearchRequest): Promise<readonly SearchHit[]>;
}

/** A search message (`query`) or an indexed skill text (`passage`); asymmetric models prompt them differently. */
export type EmbedKind = 'query' | 'passage';

/** How vectors are used besides their kind. */
export interface EmbedUse {
  /** Used by this process only, never stored (a changed skill searched before it is written): a model may make them on a faster path, within float rounding of the stored ones. @default false */
  readonly transient?: boolean;
}

/** A sentence encoder. Vectors are L2-normalised `Float32Array`s of length `dimensions`. */
export interface Embedder {
  /** Stable model id, part of every cache key and index manifest. */
  readonly id: string;
  readonly dimensions: number;
  /** Reads many languages: dense search then skips the dictionary translation. @default false */
  readonly multilingual?: boolean;
  /** `kind` defaults to `passage`; symmetric models ignore it, as most ignore `use`. */
  embed(texts: readonly string[], signal?: AbortSignal, kind?: EmbedKind, use?: EmbedUse): Promise<Float32Array[]>;
  /** Loads the model now rather than at the first `embed`; never rejects (a failed load fails the next `embed`). */
  warm?(): Promise<void>;
}
