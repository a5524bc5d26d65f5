import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { normalizeMessagesForAPI } from '../../src/attachments/normalize.js';
import { attachmentMessage } from '../../src/attachments/messages.js';
import { MAX_QUERY_CHARS } from '../../src/integrations/query-cap.js';
import { SkillPrefetcher } from '../../src/prefetch/prefetcher.js';
import { makeSkill } from '../attachments/make-skill.js';
import { ControlledSearcher, flush, hit, staticSearcher } from './fake-searcher.js';

const pdf = makeSkill('pdf', { description: 'Read and fill PDF forms', whenToUse: 'when a PDF is attached' });
const xlsx = makeSkill('xlsx', { description: 'Edit spreadsheets' });
const docx = makeSkill('docx', { description: 'Edit Word documents' });
const commit = makeSkill('commit', { description: 'Create a git commit' });

describe('SkillPrefetcher discovery', () => {
  it('returns relevant skills that are neither visible nor invoked, best first', async () => {
    const prefetcher = new SkillPrefetcher({ searcher: staticSearcher([hit(xlsx, 0.5), hit(pdf, 0.9), hit(commit, 0.8), hit(docx, 0.7)]) });
    const handle = prefetcher.start({ userMessage: 'fill this pdf form', visible: new Set(['commit']), invoked: new Set(['docx']) });
    const attachment = await handle.collect();
    expect(attachment).toEqual({
      type: 'skill_discovery',
      skills: [
        { name: 'pdf', description: 'Read and fill PDF forms', whenToUse: 'when a PDF is attached', source: 'skills', score: 0.9 },
        { name: 'xlsx', description: 'Edit spreadsheets', source: 'skills', score: 0.5 },
      ],
    });
    expect(normalizeMessagesForAPI([attachmentMessage(attachment!)])[0]?.content).toBe(
      '<system-reminder>\nSkills relevant to your task:\n\n- pdf: Read and fill PDF forms - when a PDF is attached\n- xlsx: Edit spreadsheets\n</system-reminder>',
    );
  });

  it('searches a pasted megabyte as the hook does: its start and its end, at most MAX_QUERY_CHARS', async () => {
    const searcher = new ControlledSearcher();
    const ask = 'why does this build fail?';
    const handle = new SkillPrefetcher({ searcher }).start({ userMessage: `merge two PDFs\n${'log line\n'.repeat(100_000)}${ask}` });
    await flush();
    const query = searcher.calls[0]?.query ?? '';
    expect(query.length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
    expect(query.startsWith('merge two PDFs\n')).toBe(true);
    expect(query.endsWith(ask)).toBe(true);
    searcher.calls[0]?.resolve([]);
    await handle.collect();
  });

  it('passes the user message and searchK to the searcher, and caps the discovery at maxSkills', async () => {
    const searcher = new ControlledSearcher();
    const prefetcher = new SkillPrefetcher({ searcher, maxSkills: 1, searchK: 7 });
    const handle = prefetcher.start({ userMessage: '  merge two PDFs  ' });
    await flush();
    expect(searcher.calls[0]?.query).toBe('merge two PDFs');
    expect(searcher.calls[0]?.request?.k).toBe(7);
    searcher.calls[0]?.resolve([hit(pdf, 0.9), hit(xlsx, 0.8)]);
    expect((await handle.collect())?.skills.map((s) => s.name)).toEqual(['pdf']);
  });

  it('collects null when the search found nothing', async () => {
    const prefetcher = new SkillPrefetcher({ searcher: staticSearcher([]) });
    expect(await prefetcher.start({ userMessage: 'hello there' }).collect()).toBeNull();
  });

  it('collects null when every hit is already visible or invoked', async () => {
    const prefetcher = new SkillPrefetcher({ searcher: staticSearcher([hit(pdf, 0.9), hit(commit, 0.8)]) });
    const handle = prefetcher.start({ userMessage: 'x', visible: new Set(['pdf']), invoked: new Set(['commit']) });
    expect(await handle.collect()).toBeNull();
  });

  it('collects null when every hit is below minScore', async () => {
    const prefetcher = new SkillPrefetcher({ searcher: staticSearcher([hit(pdf, 0.29)]), minScore: 0.3 });
    expect(await prefetcher.start({ userMessage: 'x' }).collect()).toBeNull();
  });

  it('reads visible and invoked when collecting, so a skill invoked by a tool this turn is skipped', async () => {
    const invoked = new Set<string>();
    const prefetcher = new SkillPrefetcher({ searcher: staticSearcher([hit(pdf, 0.9)]) });
    const handle = prefetcher.start({ userMessage: 'pdf', invoked });
    invoked.add('pdf');
    expect(await handle.collect()).toBeNull();
  });

  it('does not search for an empty message', async () => {
    const searcher = new ControlledSearcher();
    const handle = new SkillPrefetcher({ searcher }).start({ userMessage: '   ' });
    expect(await handle.collect()).toBeNull();
    expect(searcher.calls).toHaveLength(0);
  });

  it('turns a search failure into null, reports it, and marks the handle failed', async () => {
    const errors: unknown[] = [];
    const failure = new Error('index corrupt');
    const prefetcher = new SkillPrefetcher({
      searcher: { search: () => Promise.reject(failure) },
      onError: (error) => errors.push(error),
    });
    const handle = prefetcher.start({ userMessage: 'x' });
    expect(await handle.collect()).toBeNull();
    expect(handle.state).toBe('failed');
    expect(handle.error).toBe(failure);
    expect(errors).toEqual([failure]);
  });

  it('survives a searcher that throws synchronously', async () => {
    const prefetcher = new SkillPrefetcher({
      searcher: {
        search: () => {
          throw new Error('boom');
        },
      },
    });
    const handle = prefetcher.start({ userMessage: 'x' });
    expect(await handle.collect()).toBeNull();
    expect(handle.state).toBe('failed');
  });
});

describe('SkillPrefetcher cancellation', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    await flush();
    process.off('unhandledRejection', onUnhandled);
    expect(unhandled).toEqual([]);
  });

  it('aborting the turn aborts the search signal and collects null', async () => {
    const searcher = new ControlledSearcher();
    const turn = new AbortController();
    const handle = new SkillPrefetcher({ searcher }).start({ userMessage: 'pdf', signal: turn.signal });
    await flush();
    const searchSignal = searcher.calls[0]?.request?.signal;
    expect(searchSignal?.aborted).toBe(false);
    turn.abort();
    expect(searchSignal?.aborted).toBe(true);
    expect(await handle.collect()).toBeNull();
    expect(handle.state).toBe('aborted');
  });

  it('drops a late result from a searcher that ignores its signal', async () => {
    const searcher = new ControlledSearcher({ ignoreAbort: true });
    const turn = new AbortController();
    const handle = new SkillPrefetcher({ searcher }).start({ userMessage: 'pdf', signal: turn.signal });
    await flush();
    turn.abort();
    const collected = handle.collect();
    searcher.calls[0]?.resolve([hit(pdf, 0.9)]);
    expect(await collected).toBeNull();
    expect(handle.state).toBe('aborted');
  });

  it('drops a late rejection from a searcher that ignores its signal', async () => {
    const searcher = new ControlledSearcher({ ignoreAbort: true });
    const handle = new SkillPrefetcher({ searcher }).start({ userMessage: 'pdf' });
    await flush();
    handle.dispose();
    searcher.calls[0]?.reject(new Error('late failure'));
    expect(await handle.collect()).toBeNull();
    expect(handle.state).toBe('aborted');
  });

  it('dispose() cancels the search and is idempotent', async () => {
    const searcher = new ControlledSearcher();
    const handle = new SkillPrefetcher({ searcher }).start({ userMessage: 'pdf' });
    await flush();
    handle.dispose();
    handle.dispose();
    expect(searcher.calls[0]?.request?.signal?.aborted).toBe(true);
    expect(await handle.collect()).toBeNull();
  });

  it('does not search at all when the turn is already aborted', async () => {
    const searcher = new ControlledSearcher();
    const handle = new SkillPrefetcher({ searcher }).start({ userMessage: 'pdf', signal: AbortSignal.abort() });
    expect(handle.state).toBe('aborted');
    expect(await handle.collect()).toBeNull();
    await flush();
    expect(searcher.calls).toHaveLength(0);
  });

  it('removes its listener from a long-lived signal as each search settles', async () => {
    const session = new AbortController();
    const searcher = new ControlledSearcher();
    const prefetcher = new SkillPrefetcher({ searcher, concurrency: 3 });
    const handles = Array.from({ length: 5 }, () => prefetcher.start({ userMessage: 'pdf', signal: session.signal }));
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(5);
    await flush();
    for (const call of searcher.calls) call.resolve([]);
    handles[3]?.dispose();
    handles[4]?.dispose();
    await prefetcher.idle();
    expect(getEventListeners(session.signal, 'abort')).toHaveLength(0);
    expect(prefetcher.pendingCount).toBe(0);
  });

  it('disposeAll() cancels every pending search', async () => {
    const searcher = new ControlledSearcher();
    const prefetcher = new SkillPrefetcher({ searcher, concurrency: 1 });
    const handles = [prefetcher.start({ userMessage: 'a' }), prefetcher.start({ userMessage: 'b' })];
    prefetcher.disposeAll();
    expect(await Promise.all(handles.map((h) => h.collect()))).toEqual([null, null]);
    expect(handles.map((h) => h.state)).toEqual(['aborted', 'aborted']);
  });
});

describe('SkillPrefetcher concurrency', () => {
  it('runs at most `concurrency` searches at once and skips turns aborted while queued', async () => {
    const searcher = new ControlledSearcher();
    const prefetcher = new SkillPrefetcher({ searcher, concurrency: 2 });
    const turns = Array.from({ length: 5 }, () => new AbortController());
    const handles = turns.map((turn, i) => prefetcher.start({ userMessage: `q${i}`, signal: turn.signal }));
    await flush();
    expect(searcher.calls.map((c) => c.query)).toEqual(['q0', 'q1']);
    expect(prefetcher.runningCount).toBe(2);

    turns[2]?.abort();
    searcher.calls[0]?.resolve([]);
    await flush();
    expect(searcher.calls.map((c) => c.query)).toEqual(['q0', 'q1', 'q3']);
    expect(handles[2]?.state).toBe('aborted');

    for (let i = 0; i < 3; i += 1) {
      for (const call of searcher.calls) call.resolve([]);
      await flush();
    }
    expect(searcher.calls.map((c) => c.query)).toEqual(['q0', 'q1', 'q3', 'q4']);
    expect(searcher.maxActive).toBe(2);
    await prefetcher.idle();
  });

  it('defaults to 2', async () => {
    const searcher = new ControlledSearcher();
    const prefetcher = new SkillPrefetcher({ searcher });
    for (let i = 0; i < 4; i += 1) prefetcher.start({ userMessage: `q${i}` });
    await flush();
    expect(searcher.active).toBe(2);
    prefetcher.disposeAll();
    await prefetcher.idle();
  });
});

describe('SkillPrefetcher timing', () => {
  it('records how long collect() actually waited', async () => {
    let clock = 0;
    const searcher = new ControlledSearcher();
    const prefetcher = new SkillPrefetcher({ searcher, now: () => clock });

    const early = prefetcher.start({ userMessage: 'a' });
    await flush();
    clock = 40;
    const collecting = early.collect();
    clock = 100;
    searcher.calls[0]?.resolve([]);
    await collecting;
    expect(early.timing).toEqual({ startedAt: 0, settledAt: 100, collectCalledAt: 40, collectedAt: 100, searchMs: 100, addedMs: 60 });

    clock = 200;
    const hidden = prefetcher.start({ userMessage: 'b' });
    await flush();
    clock = 230;
    searcher.calls[1]?.resolve([]);
    await hidden.settled;
    clock = 500;
    await hidden.collect();
    expect(hidden.timing).toMatchObject({ searchMs: 30, addedMs: 0 });
  });
});

describe('SkillPrefetcher options', () => {
  it('rejects bad options with the value in the message', () => {
    const searcher = staticSearcher([]);
    expect(() => new SkillPrefetcher({ searcher, concurrency: 0 })).toThrow('skill-search: Expected `concurrency` to be a positive integer, got `0`');
    expect(() => new SkillPrefetcher({ searcher, maxSkills: 2.5 })).toThrow('Expected `maxSkills` to be a positive integer, got `2.5`');
    expect(() => new SkillPrefetcher({ searcher, minScore: Number.NaN })).toThrow('Expected `minScore` to be a finite number, got `NaN`');
    expect(() => new SkillPrefetcher({ searcher: {} as never })).toThrow('Expected `searcher` to have a `search(query, request)` method');
    expect(() => new SkillPrefetcher({ searcher }).start({ userMessage: 42 as never })).toThrow('Expected `userMessage` to be a string, got `42`');
  });

  it('refuses `visible` or `invoked` that is not a Set when the turn starts, not with a TypeError at collect (an array from plain JavaScript)', () => {
    const prefetcher = new SkillPrefetcher({ searcher: staticSearcher([]) });
    expect(() => prefetcher.start({ userMessage: 'fill the pdf form', visible: ['pdf'] as never })).toThrow(
      'skill-search: Expected `visible` to be a Set of skill names (skillNamesInHistory(history)), got `["pdf"]`',
    );
    expect(() => prefetcher.start({ userMessage: 'fill the pdf form', invoked: 'pdf' as never })).toThrow(
      'skill-search: Expected `invoked` to be a Set of skill names, got `"pdf"`',
    );
    expect(prefetcher.pendingCount).toBe(0);
  });

  it('refuses an option it does not have, naming it and every option (a misspelling from plain JavaScript)', () => {
    expect(() => new SkillPrefetcher({ searcher: staticSearcher([]), maxSkill: 5 } as never)).toThrow(
      'skill-search: Expected an option of SkillPrefetcher, got `maxSkill` (did you mean `maxSkills`?); its options: searcher, concurrency, maxSkills, searchK, minScore, now, onError',
    );
  });
});

describe('SkillPrefetcher after settle', () => {
  it('collects null when the turn was aborted after the search had already settled', async () => {
    const turn = new AbortController();
    const handle = new SkillPrefetcher({ searcher: staticSearcher([hit(pdf, 0.9)]) }).start({ userMessage: 'pdf', signal: turn.signal });
    expect(await handle.settled).toBe('done');
    turn.abort();
    expect(await handle.collect()).toBeNull();
  });
});

describe('SkillPrefetcher start()', () => {
  it('returns before the searcher is called, so no search work runs inside start()', async () => {
    const searcher = new ControlledSearcher();
    const handle = new SkillPrefetcher({ searcher }).start({ userMessage: 'pdf' });
    expect(searcher.calls).toHaveLength(0);
    await flush();
    expect(searcher.calls).toHaveLength(1);
    handle.dispose();
  });

  it('does not call the searcher when the turn aborts right after start()', async () => {
    const searcher = new ControlledSearcher();
    const turn = new AbortController();
    const handle = new SkillPrefetcher({ searcher }).start({ userMessage: 'pdf', signal: turn.signal });
    turn.abort();
    expect(await handle.collect()).toBeNull();
    await flush();
    expect(searcher.calls).toHaveLength(0);
  });
});
