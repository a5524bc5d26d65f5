/**
 * Claude Code `UserPromptSubmit` hook (Codex's takes the same JSON on stdin): relevant skills go
 * back as `hookSpecificOutput.additionalContext`, each announced once per session (until a
 * compaction). It never gets in the way: an overrun ends with no output, a failure with one line.
 */
// Only the attachment modules it renders with (not the Skill tool's zod schema).
import type { SkillDiscoveryAttachment } from '../attachments/messages.js';
import { attachmentText } from '../attachments/normalize.js';
import { SkillSearchError, abortError, errorMessage } from '../errors.js';
import { SkillPrefetcher } from '../prefetch/prefetcher.js';
import { linkAbortSignal } from '../util/link-signal.js';
import type { HostName, SkillSearcher } from '../types.js';
import { isFollowUp, withConversation } from './follow-up.js';
import { capQuery } from './query-cap.js';
import { type DeferredSkill, HostSearcher, hookNotice, isListedBy, loadInstructions } from './hosts.js';
import { InvokedSkills, claudeCodeName, writtenClaudeCodeName } from './invoked-skills.js';
import type { ClosableSearcher } from './service.js';
import { SessionState } from './session-state.js';
import { readTranscript } from './transcript.js';
import { firstLine } from '../util/text.js';
import { isRecord, parseJsonQuietly } from '../util/json-file.js';

export const USER_PROMPT_SUBMIT = 'UserPromptSubmit';

/** The fields of Claude Code's hook input this hook reads (others are ignored). */
export interface ClaudeCodeHookInput {
  readonly session_id?: string;
  readonly transcript_path?: string;
  readonly cwd?: string;
  readonly hook_event_name: string;
  readonly prompt: string;
}

export interface ClaudeCodeHookOutput {
  readonly hookSpecificOutput: {
    readonly hookEventName: typeof USER_PROMPT_SUBMIT;
    readonly additionalContext: string;
  };
}

function badInput(problem: string): SkillSearchError {
  return new SkillSearchError('BAD_INPUT', problem);
}

/** The fields this hook reads, or a `BAD_INPUT` error saying what is wrong with the stdin JSON. */
export function parseClaudeCodeHookInput(text: string): ClaudeCodeHookInput {
  const record = parseJsonQuietly(text);
  if (record === undefined) throw badInput(text.trim() === '' ? 'stdin is empty; expected the hook JSON' : 'stdin is not JSON');
  if (!isRecord(record)) throw badInput('stdin JSON is not an object');
  const event = record.hook_event_name ?? USER_PROMPT_SUBMIT;
  if (typeof event !== 'string') throw badInput('"hook_event_name" is not a string');
  if (typeof record.prompt !== 'string') throw badInput('"prompt" is missing or not a string');
  if (record.cwd !== undefined && typeof record.cwd !== 'string') throw badInput('"cwd" is not a string');
  return {
    ...(typeof record.session_id === 'string' ? { session_id: record.session_id } : {}),
    ...(typeof record.transcript_path === 'string' ? { transcript_path: record.transcript_path } : {}),
    ...(typeof record.cwd === 'string' ? { cwd: record.cwd } : {}),
    hook_event_name: event,
    prompt: record.prompt,
  };
}

/** The skill_discovery text without its `<system-reminder>` envelope (Claude Code puts additional context in its own). */
export function discoveryContext(attachment: SkillDiscoveryAttachment | null): string | undefined {
  return (attachment === null ? null : attachmentText(attachment)) ?? undefined;
}

export interface ClaudeCodeHookOptions {
  /** Opens the search for the project the hook fired in (the input's `cwd`). */
  readonly open: (cwd: string | undefined) => Promise<ClosableSearcher>;
  /** Most skills announced (the search mode and abstention are the service's). */
  readonly k: number;
  /** Whole budget: opening the index, syncing changed skills and searching. */
  readonly timeoutMs: number;
  /** One-line notes for the user (stderr); never stdout. */
  readonly log: (line: string) => void;
  readonly signal?: AbortSignal;
  /** The host the output is for: suggestions it does not list carry their path and how to load them. @default 'claude-code' */
  readonly host?: HostName;
  /** Keep this package's demo skills in suggestions (a host cannot know them). @default false */
  readonly keepDemo?: boolean;
  /** Told, once a turn has an answer, which skills the session invoked and which were suggested (the usage store's input). */
  readonly onTurn?: (turn: HookTurn) => void;
  /** The folder of per-session memory: a skill is announced once a session (until a compaction). Without it every prompt starts fresh. */
  readonly sessionDir?: string;
  /** Of the suggested names from folders `host` does not scan, those its own folders hold too: listed by it, so given no path. */
  readonly listedByHost?: (names: readonly string[]) => Promise<ReadonlySet<string>>;
}

export interface HookTurn {
  readonly sessionId: string | undefined;
  readonly cwd: string | undefined;
  readonly invoked: readonly string[];
  readonly suggested: readonly string[];
}

export interface ClaudeCodeHookResult {
  /** What to print on stdout: the JSON line with the context, or (Claude Code) a `systemMessage` saying what went wrong, or `''`. */
  readonly stdout: string;
  readonly outcome: 'context' | 'nothing' | 'skipped' | 'failed' | 'timeout';
}

/** Never rejects. Work that overruns the budget is abandoned, not awaited: the caller should exit once it has printed the result. */
export async function runClaudeCodeHook(stdin: string, options: ClaudeCodeHookOptions): Promise<ClaudeCodeHookResult> {
  const host = options.host ?? 'claude-code';
  const problem = (line: string, outcome: 'failed' | 'skipped'): ClaudeCodeHookResult => {
    options.log(line);
    return { stdout: hookNotice(host, line), outcome };
  };
  let input: ClaudeCodeHookInput;
  try {
    input = parseClaudeCodeHookInput(stdin);
  } catch (error) {
    return problem(`skill-search hook: ignored input: ${errorMessage(error)}`, 'failed');
  }
  if (input.hook_event_name !== USER_PROMPT_SUBMIT) {
    return problem(`skill-search hook: ignored event '${input.hook_event_name}' (only ${USER_PROMPT_SUBMIT} is handled)`, 'skipped');
  }
  if (input.prompt.trim() === '') return { stdout: '', outcome: 'nothing' };

  const controller = new AbortController();
  const unlink = linkAbortSignal(options.signal, controller);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(abortError(undefined, 'hook time budget exceeded'));
      resolve('timeout');
    }, options.timeoutMs);
  });
  let seen: HostSearcher['seen'] = new Map();
  let session: SessionState | undefined;
  // A hit counts as invoked under its catalog name or the name Claude Code lists it by.
  const invoked = new InvokedSkills((name) => seen.get(name));
  const announced = new Set<string>();
  // One prefetch turn: the same relevance filter and discovery shape as an agent loop gets.
  const work = (async () => {
    // The transcript is read while the search runs (`invoked` and `visible` are read when collecting); a follow-up waits for its turns.
    const transcript = readTranscript(input.transcript_path);
    const query = capQuery(input.prompt);
    const service = new HostSearcher(await options.open(input.cwd), { keepDemo: options.keepDemo === true });
    seen = service.seen;
    try {
      let searcher: SkillSearcher = service;
      if (isFollowUp(query)) searcher = withConversation(service, query, earlierTurns((await transcript).userTurns, query));
      const prefetcher = new SkillPrefetcher({ searcher, maxSkills: options.k, searchK: Math.max(10, options.k) });
      const handle = prefetcher.start({ userMessage: query, signal: controller.signal, invoked, visible: announced });
      const facts = await transcript;
      // Skills invoked earlier in the session are not announced again.
      for (const name of facts.invoked) invoked.add(name);
      if (options.sessionDir !== undefined && input.session_id !== undefined && input.session_id !== '') {
        session = SessionState.open(input.session_id, { transcript: input.transcript_path ?? '', compactions: facts.compactions }, { dir: options.sessionDir });
        for (const name of session.announced) announced.add(name);
      }
      const attachment = await handle.collect();
      if (handle.state === 'failed') throw handle.error;
      return attachment;
    } finally {
      await service.close();
    }
  })();
  // A late rejection after the timeout must not surface as an unhandled rejection.
  work.catch(() => undefined);

  try {
    const found = await Promise.race([work, timeout]);
    if (found === 'timeout') {
      options.log(
        `skill-search hook: no answer within ${options.timeoutMs} ms; skipped (keep 'skill-search watch' running for fast answers, or run 'skill-search index')`,
      );
      return { stdout: '', outcome: 'timeout' };
    }
    // A skill the prompt runs in the host (`/name`, `$name`) is loaded already: invoked, not suggested. Having chosen it, the
    // prompt gets no other suggestion but a skill it names exactly (score 1), as a prompt naming skills does (Codex's `$name`
    // is not a form the search reads as naming, Claude Code's `/name` is).
    const ran = runByHost(host, input.prompt, seen);
    for (const name of ran) invoked.add(name);
    const result = ran.length === 0 ? found : without(namedExactly(found), ran);
    const discovered = discoveryContext(result);
    const suggestedNames = (result?.skills ?? []).map((skill) => skill.name);
    try {
      options.onTurn?.({ sessionId: input.session_id, cwd: input.cwd, invoked: invoked.catalogNames(seen.values()), suggested: suggestedNames });
    } catch (error) {
      // Bookkeeping must never cost the user the answer.
      options.log(`skill-search hook: usage not recorded: ${firstLine(errorMessage(error))}`);
    }
    // A skill the prompt ran is in the session's context as well: not announced later either.
    const remembered = [...suggestedNames, ...ran];
    if (session !== undefined && remembered.length > 0) {
      session.remember(remembered);
      const failed = session.save();
      if (failed) options.log(`skill-search hook: session memory not saved (${session.file}): ${firstLine(errorMessage(failed))}`);
    }
    if (discovered === undefined) return { stdout: '', outcome: 'nothing' };
    const suggested = (result?.skills ?? []).flatMap((skill) => seen.get(skill.name) ?? []);
    const deferred = suggested.filter((skill) => !isListedBy(host, skill)).map((skill) => skill.name);
    const listed =
      deferred.length === 0 || options.listedByHost === undefined ? new Set<string>() : await options.listedByHost(deferred).catch(() => new Set<string>());
    const unlisted = suggested.filter((skill) => !listed.has(skill.name));
    const howToLoad = loadInstructions(host, unlisted);
    const context = howToLoad === undefined ? discovered : `${discovered}\n\n${howToLoad}`;
    const output: ClaudeCodeHookOutput = { hookSpecificOutput: { hookEventName: USER_PROMPT_SUBMIT, additionalContext: context } };
    return { stdout: `${JSON.stringify(output)}\n`, outcome: 'context' };
  } catch (error) {
    return problem(`skill-search hook: skipped: ${firstLine(errorMessage(error))}`, 'failed');
  } finally {
    clearTimeout(timer);
    unlink();
  }
}

/**
 * The skills (catalog names, among the hits `seen`) the prompt itself runs in `host`, which lists
 * them: Claude Code a leading `/name` (by the name it lists, else by the frontmatter name it shows
 * beside that), Codex each `$name` mention followed by a space
 * (Codex 0.171.0 does not run `$name:`).
 */
function runByHost(host: HostName, prompt: string, seen: HostSearcher['seen']): string[] {
  const named =
    host === 'claude-code' ? [/^\/([^\s/]+)/.exec(prompt.trimStart())?.[1]] : [...prompt.matchAll(/(?:^|\s)\$([\w:-]+)(?=\s|$)/g)].map((match) => match[1]);
  const wanted = new Set(named.filter((name) => name !== undefined));
  if (wanted.size === 0) return [];
  const listed = [...seen.values()].filter((skill) => isListedBy(host, skill));
  const hostName = (skill: DeferredSkill) => (host === 'claude-code' ? claudeCodeName(skill) : skill.name);
  const ran = listed.filter((skill) => wanted.has(hostName(skill))).map((skill) => skill.name);
  if (ran.length > 0 || host !== 'claude-code') return ran;
  const byWritten = listed.find((skill) => wanted.has(writtenClaudeCodeName(skill) ?? ''));
  return byWritten === undefined ? [] : [byWritten.name];
}

/** The discovery's skills a prompt names exactly (scored 1 by the search); null when there are none. */
function namedExactly(found: SkillDiscoveryAttachment | null): SkillDiscoveryAttachment | null {
  const skills = (found?.skills ?? []).filter((skill) => skill.score >= 1);
  return found === null || skills.length === 0 ? null : { ...found, skills };
}

/** The discovery without the skills `names`; null when nothing is left. */
function without(found: SkillDiscoveryAttachment | null, names: readonly string[]): SkillDiscoveryAttachment | null {
  const skills = (found?.skills ?? []).filter((skill) => !names.includes(skill.name));
  return found === null || skills.length === 0 ? null : { ...found, skills };
}

/** The user turns before `prompt`: the host may have written the prompt itself already. */
function earlierTurns(turns: readonly string[], prompt: string): readonly string[] {
  return turns.at(-1) === prompt.trim() ? turns.slice(0, -1) : turns;
}
