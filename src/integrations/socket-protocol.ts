/**
 * The local search server's wire format, one JSON object per line each way:
 *   → {"id":1,"op":"search","query":"fill a pdf form","k":3,"mode":"hybrid","explain"?:true}
 *   ← {"id":1,"hits":[{"name","source","score","companion"?,"path","description","whenToUse"?,"invocation"?,"why"?}],"tookMs":4.2,"skills":120}
 *   → {"id":2,"op":"ping"}
 *   ← {"id":2,"pong":true,"pid":4242,"version":"0.1.0","skills":120}
 *   ← {"id":null,"error":{"code":"bad-json","message":"…"}}   (any request that cannot be served)
 *
 * Responses carry the request's `id` and may arrive out of order; scores travel unrounded.
 */
import path from 'node:path';
import { privateSocketDirs } from './socket-trust.js';
import { shortHash } from '../util/hash.js';
import {
  ABSTAIN_LEVELS,
  LOADED_FROM,
  SEARCH_MODES,
  type AbstainLevel,
  type AbstainSetting,
  type HitExplanation,
  type LoadedFrom,
  type SearchHit,
  type SearchMode,
  type Skill,
  type SkillInvocation,
} from '../types.js';
import { isRecord, parseJsonQuietly } from '../util/json-file.js';
import { definedOnly } from '../util/defined.js';

/** A longer request line is refused and its connection closed (no way to resync). */
export const MAX_REQUEST_BYTES = 64 * 1024;
/** Upper bound on `k` a client may ask for. */
const MAX_SOCKET_K = 100;
const SOCKET_FILE = 'server.sock';

export type RequestId = string | number | null;

interface SearchRequestLine {
  readonly id: RequestId;
  readonly op: 'search';
  readonly query: string;
  readonly k?: number;
  readonly mode?: SearchMode;
  /** As `SearchRequest.abstain`: `false` / `'off'` returns the top k; a level or a number sets the threshold. */
  readonly abstain?: boolean | AbstainSetting;
  /** As `SearchRequest.explain`: every hit carries its `why`. */
  readonly explain?: boolean;
}

export type RequestLine = SearchRequestLine | { readonly id: RequestId; readonly op: 'ping' };

export interface WireHit {
  readonly name: string;
  readonly source: LoadedFrom;
  readonly score: number;
  /** `SearchHit.companion`: shown below the threshold beside a hit that reached it. */
  readonly companion?: true;
  readonly path: string;
  readonly description: string;
  readonly whenToUse?: string;
  /** `Skill.invocation`: the client keeps a skill the host closes to the model out of what it offers. */
  readonly invocation?: SkillInvocation;
  /** Only when the request asked for `explain` (numbers unrounded, as the score). */
  readonly why?: HitExplanation;
}

interface SearchResponseLine {
  readonly id: RequestId;
  readonly hits: readonly WireHit[];
  /** Time the server spent on the search, in milliseconds. */
  readonly tookMs: number;
  /** Skills in the served index (0: nothing indexed yet). */
  readonly skills: number;
}

export interface PingResponseLine {
  readonly id: RequestId;
  readonly pong: true;
  readonly pid: number;
  readonly version: string;
  readonly skills: number;
}

export type ProtocolErrorCode = 'bad-json' | 'bad-request' | 'too-large' | 'internal';

export interface ErrorResponseLine {
  readonly id: RequestId;
  readonly error: { readonly code: ProtocolErrorCode; readonly message: string };
}

export type ResponseLine = SearchResponseLine | PingResponseLine | ErrorResponseLine;

export function errorLine(id: RequestId, code: ProtocolErrorCode, message: string): ErrorResponseLine {
  return { id, error: { code, message } };
}

/** A request, or the error response that answers it. Never throws. */
export function parseRequestLine(text: string): RequestLine | ErrorResponseLine {
  const data = parseJsonQuietly(text);
  if (data === undefined) return errorLine(null, 'bad-json', 'request is not JSON');
  if (!isRecord(data)) return errorLine(null, 'bad-request', 'request is not a JSON object');
  const id = data.id ?? null;
  if (!(id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))))
    return errorLine(null, 'bad-request', '"id" must be a string, a number or null');
  const bad = (problem: string) => errorLine(id, 'bad-request', problem);
  if (data.op === 'ping') return { id, op: 'ping' };
  if (data.op !== 'search') return bad(`"op" must be "search" or "ping", got ${JSON.stringify(data.op) ?? 'nothing'}`);
  if (typeof data.query !== 'string') return bad('"query" must be a string');
  const { k, mode, abstain, explain } = data;
  if (k !== undefined && (typeof k !== 'number' || !Number.isSafeInteger(k) || k < 1 || k > MAX_SOCKET_K)) {
    return bad(`"k" must be an integer from 1 to ${MAX_SOCKET_K}, got ${JSON.stringify(k)}`);
  }
  if (mode !== undefined && !(SEARCH_MODES as readonly unknown[]).includes(mode))
    return bad(`"mode" must be one of ${SEARCH_MODES.join(', ')}, got ${JSON.stringify(mode)}`);
  const abstainValid =
    typeof abstain === 'boolean' || ABSTAIN_LEVELS.includes(abstain as AbstainLevel) || (typeof abstain === 'number' && abstain >= 0 && abstain <= 1);
  if (abstain !== undefined && !abstainValid)
    return bad(`"abstain" must be a boolean, one of ${ABSTAIN_LEVELS.join(', ')} or a number from 0 to 1, got ${JSON.stringify(abstain)}`);
  if (explain !== undefined && typeof explain !== 'boolean') return bad(`"explain" must be a boolean, got ${JSON.stringify(explain)}`);
  const given = definedOnly({ k, mode, abstain, explain: explain || undefined }) as Pick<SearchRequestLine, 'k' | 'mode' | 'abstain' | 'explain'>;
  return { id, op: 'search', query: data.query, ...given };
}

export function toWireHit({ skill, score, why, companion }: SearchHit): WireHit {
  const { name, source, path, description, whenToUse, invocation } = skill;
  return definedOnly({ name, source, score, companion, path, description, whenToUse, invocation, why }) as WireHit;
}

/** A hit from the wire as a `SearchHit`: only the listing fields travel (no body), so it is for display, never for invoking. */
export function fromWireHit({ name, description, whenToUse, invocation, source, path, score, companion, why }: WireHit): SearchHit {
  const skill: Skill = {
    ...definedOnly({ name, description, whenToUse, invocation }),
    source,
    rank: 0,
    path,
    id: name,
    body: '',
    tokenEstimate: 0,
    contentHash: '',
  } as Skill;
  return { skill, score, via: [], ...definedOnly({ companion, why }) };
}

/** Checks the shape of a search response from a server we did not write the other end of. */
export function isWireHit(value: unknown): value is WireHit {
  return (
    isRecord(value) &&
    typeof value.name === 'string' &&
    typeof value.source === 'string' &&
    (LOADED_FROM as readonly string[]).includes(value.source) &&
    typeof value.score === 'number' &&
    (value.companion === undefined || value.companion === true) &&
    typeof value.path === 'string' &&
    typeof value.description === 'string' &&
    (value.whenToUse === undefined || typeof value.whenToUse === 'string') &&
    (value.invocation === undefined || isInvocation(value.invocation)) &&
    (value.why === undefined || isExplanation(value.why))
  );
}

function isInvocation(value: unknown): value is SkillInvocation {
  return (
    isRecord(value) &&
    typeof value.model === 'boolean' &&
    typeof value.user === 'boolean' &&
    Array.isArray(value.reasons) &&
    value.reasons.every((reason) => typeof reason === 'string')
  );
}

/** The parts of an explanation a client relies on: matched terms per field, threshold, verdict. */
function isExplanation(value: unknown): value is HitExplanation {
  return (
    isRecord(value) &&
    isRecord(value.matched) &&
    Object.values(value.matched).every((terms) => Array.isArray(terms) && terms.every((term) => typeof term === 'string')) &&
    typeof value.threshold === 'number' &&
    typeof value.passed === 'boolean'
  );
}

/** Linux allows 107 bytes in a socket path, macOS 103; keep a margin. */
const MAX_SOCKET_PATH_BYTES = 100;

/**
 * Where the server for an index listens: `<indexDir>/server.sock`, or when too long for a Unix
 * socket `<digest>.sock` in this user's private socket folder; on Windows a named pipe.
 */
export function socketPathFor(indexDir: string, platform: NodeJS.Platform = process.platform): string {
  const digest = shortHash(path.resolve(indexDir));
  if (platform === 'win32') return `\\\\.\\pipe\\skill-search-${digest}`;
  const beside = path.join(indexDir, SOCKET_FILE);
  if (Buffer.byteLength(beside) <= MAX_SOCKET_PATH_BYTES) return beside;
  const candidates = privateSocketDirs().map((dir) => path.join(dir, `${digest}.sock`));
  return candidates.find((where) => Buffer.byteLength(where) <= MAX_SOCKET_PATH_BYTES) ?? candidates[candidates.length - 1]!;
}

/**
 * Newline framing for the search socket, with a hard cap on what a peer can make either end hold
 * (node:readline buffers an unfinished line without bound). On bytes: 0x0a never occurs inside
 * a UTF-8 character, so each line is decoded whole.
 */
export interface SplitResult {
  /** Complete lines in arrival order, without their `\n`. */
  readonly lines: readonly Buffer[];
  /** A line grew past the limit; everything after `lines` is discarded and the splitter holds nothing. */
  readonly overflow: boolean;
}

export class LineSplitter {
  #chunks: Buffer[] = [];
  #buffered = 0;

  /** `maxLineBytes`: the longest line, complete or unfinished. */
  constructor(readonly maxLineBytes: number) {}

  push(chunk: Buffer): SplitResult {
    const lines: Buffer[] = [];
    let start = 0;
    for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
      const tail = chunk.subarray(start, end);
      const line = this.#chunks.length === 0 ? tail : Buffer.concat([...this.#chunks, tail]);
      this.#reset();
      start = end + 1;
      if (line.length > this.maxLineBytes) return { lines, overflow: true };
      lines.push(line);
    }
    if (start < chunk.length) {
      this.#chunks.push(chunk.subarray(start));
      this.#buffered += chunk.length - start;
      if (this.#buffered > this.maxLineBytes) {
        this.#reset();
        return { lines, overflow: true };
      }
    }
    return { lines, overflow: false };
  }

  /** The last line when the stream ended without a `\n` (undefined when nothing is held). */
  end(): Buffer | undefined {
    const rest = this.#buffered > 0 ? Buffer.concat(this.#chunks) : undefined;
    this.#reset();
    return rest;
  }

  #reset(): void {
    this.#chunks = [];
    this.#buffered = 0;
  }
}
