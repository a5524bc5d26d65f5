/** Every message starts with this, so a line on stderr says which tool wrote it. */
const PREFIX = 'skill-search: ';

/**
 * One error class for the library. User errors (bad flag, bad file) carry a code the CLI
 * maps to exit 1; anything else is a bug (exit 2, printed with its stack).
 */
export const ERROR_CODES = {
  BAD_OPTION: 'user',
  BAD_FLAG: 'user',
  BAD_FILE: 'user',
  /** Input read from stdin (a host's hook JSON) that does not have the expected shape. */
  BAD_INPUT: 'user',
  NOT_FOUND: 'user',
  NOTHING_TO_INDEX: 'user',
  MODEL_NOT_FOUND: 'user',
  /** A socket or folder another user could control: never connected to or written in. */
  UNTRUSTED: 'user',
  /** A download could not reach the hub or was cut off (offline, proxy, mirror down). */
  NETWORK: 'user',
  /** A downloaded file's size or sha256 differs from what the hub announced; nothing was installed. */
  CHECKSUM: 'user',
  INDEX_CORRUPT: 'internal',
  ABORTED: 'internal',
  INTERNAL: 'internal',
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

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

/**
 * A bad option, worded one way everywhere: ``Expected `key` to be a positive integer, got `0` ``.
 * `expectation` completes "Expected `key` to …"; `got` is shown with `String()` unless the
 * caller renders it (JSON for arrays).
 */
export function badOption(key: string, expectation: string, got: unknown): SkillSearchError {
  return new SkillSearchError('BAD_OPTION', `Expected \`${key}\` to ${expectation}, got \`${String(got)}\``);
}

/**
 * A file that could not be read: `FILE: cannot read (ENOENT)`. The errno code when there is one
 * (the path is already named), else the error's words.
 */
export function unreadableFile(file: string, error: unknown): SkillSearchError {
  const code: unknown = (error as { code?: unknown } | null | undefined)?.code;
  return new SkillSearchError('BAD_FILE', `${file}: cannot read (${typeof code === 'string' ? code : errorMessage(error)})`, { cause: error });
}

/** Text that JSON.parse refused: `WHERE: not valid JSON (parser's reason)`, then `then` (what was or was not done). */
export function notJson(where: string, error: unknown, then = ''): SkillSearchError {
  return new SkillSearchError('BAD_FILE', `${where}: not valid JSON (${errorMessage(error)})${then}`, { cause: error });
}

/**
 * The words of any thrown value without the `skill-search: ` prefix, for a line that names the
 * tool already (`skill-search: reindex failed: …`) or a field that is not a line (a hook's log,
 * a socket reply). The one place the prefix is taken off.
 */
export function errorMessage(error: unknown): string {
  const message: unknown = (error as { message?: unknown } | null | undefined)?.message;
  const text = typeof message === 'string' ? message : String(error);
  return text.startsWith(PREFIX) ? text.slice(PREFIX.length) : text;
}

/**
 * The error a cancelled operation rejects with (matches DOM `AbortError` by name): the signal's
 * own reason when that is an AbortError, else one that says why (`'received SIGINT'`) or
 * `operation aborted`. Pass the result to `controller.abort()` to cancel with a reason.
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
