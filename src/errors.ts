/** Every message starts with this, so a line on stderr says which tool wrote it. */
const PREFIX = 'skill-search: ';

/** Error codes: a `user` one (bad flag, bad file) is CLI exit 1; an `internal` one is a bug (exit 2, with its stack). */
export const ERROR_CODES = {
  BAD_OPTION: 'user',
  BAD_FLAG: 'user',
  BAD_FILE: 'user',
  /** Stdin (a host's hook JSON) without the expected shape. */
  BAD_INPUT: 'user',
  NOT_FOUND: 'user',
  NOTHING_TO_INDEX: 'user',
  MODEL_NOT_FOUND: 'user',
  /** A socket or folder another user could control: never connected to or written in. */
  UNTRUSTED: 'user',
  /** A download could not reach the hub or was cut off. */
  NETWORK: 'user',
  /** A downloaded file's size or sha256 differs from the hub's; nothing was installed. */
  CHECKSUM: 'user',
  /** A catalog, engine or search used after its `close()`: the caller's mistake. */
  CLOSED: 'user',
  INDEX_CORRUPT: 'internal',
  ABORTED: 'internal',
  INTERNAL: 'internal',
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

/** The library's one error class; its message starts with `skill-search: `. */
export class SkillSearchError extends Error {
  override readonly name = 'SkillSearchError';
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(`${PREFIX}${message}`, options);
    this.code = code;
  }

  /** True when the problem is the user's input (CLI exit 1), not a bug (exit 2). */
  get isUserError(): boolean {
    return ERROR_CODES[this.code] === 'user';
  }
}

/** A bad option: ``Expected `key` to <expectation>, got `<got>` ``. */
export function badOption(key: string, expectation: string, got: unknown): SkillSearchError {
  return new SkillSearchError('BAD_OPTION', `Expected \`${key}\` to ${expectation}, got \`${String(got)}\``);
}

/** What a catalog, engine or search throws once closed: `<what> is closed`. */
export function closedError(what: string): SkillSearchError {
  return new SkillSearchError('CLOSED', `${what} is closed`);
}

/** `FILE: cannot read (ENOENT)`: the errno code when there is one, else the error's words. */
export function unreadableFile(file: string, error: unknown): SkillSearchError {
  const code: unknown = (error as { code?: unknown } | null | undefined)?.code;
  return new SkillSearchError('BAD_FILE', `${file}: cannot read (${typeof code === 'string' ? code : errorMessage(error)})`, { cause: error });
}

/** `WHERE: not valid JSON (parser's reason)`, then `then`. */
export function notJson(where: string, error: unknown, then = ''): SkillSearchError {
  return new SkillSearchError('BAD_FILE', `${where}: not valid JSON (${errorMessage(error)})${then}`, { cause: error });
}

/** The words of any thrown value without the `skill-search: ` prefix (for a line that names the tool already, a log, a reply). */
export function errorMessage(error: unknown): string {
  const message: unknown = (error as { message?: unknown } | null | undefined)?.message;
  const text = typeof message === 'string' ? message : String(error);
  return text.startsWith(PREFIX) ? text.slice(PREFIX.length) : text;
}

/**
 * The error a cancelled operation rejects with (named `AbortError`, like DOM's): the signal's
 * reason when that is one, else one saying `why`. Pass it to `controller.abort()` to give a reason.
 */
export function abortError(signal?: AbortSignal, why = 'operation aborted'): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const error = new Error(`${PREFIX}${why}`, { cause: reason });
  error.name = 'AbortError';
  return error;
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortError(signal);
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
