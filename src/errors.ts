/**
 * One error class for the library. User errors (bad flag, bad file) carry a code the CLI
 * maps to exit 1; anything else is a bug (exit 2, printed with its stack).
 */
export const ERROR_CODES = {
  BAD_OPTION: 'user',
  BAD_FLAG: 'user',
  BAD_FILE: 'user',
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
    super(`skill-search: ${message}`, options);
    this.code = code;
  }

  /** True when the problem is the user's input (CLI exit 1), not a bug (exit 2). */
  get isUserError(): boolean {
    return ERROR_CODES[this.code] === 'user';
  }
}

/** The error a cancelled operation rejects with (matches DOM `AbortError` by name). */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  const error = new Error('skill-search: operation aborted', { cause: reason });
  error.name = 'AbortError';
  return error;
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) throw abortError(signal);
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
