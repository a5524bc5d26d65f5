import { mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SkillSearchError } from '../../src/errors.js';
import { LiveIndex, type LiveIndexOptions } from '../../src/integrations/live-index.js';
import { socketPathFor } from '../../src/integrations/socket-protocol.js';
import { SkillSocketServer } from '../../src/integrations/socket-server.js';
import { type Fallback, OpenedSearch, openSearch, type SnapshotPath, snapshotCanAnswer } from '../../src/service/open-search.js';
import { SKILLS, removeDir, tempDir } from '../cli/helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach(removeDir));

function setup(): { options: LiveIndexOptions; socketPath: string } {
  const scratch = tempDir();
  dirs.push(scratch);
  const indexDir = path.join(scratch, 'index');
  return { options: { catalog: { skillsDirs: [SKILLS] }, model: 'hash', indexDir, k: 3 }, socketPath: socketPathFor(indexDir) };
}

/** Builds the index and its search snapshot, as `skill-search index` leaves them. */
async function indexed(options: LiveIndexOptions): Promise<void> {
  const live = await LiveIndex.open(options);
  await live.refresh();
  await live.close();
}

const QUERY = 'a test fails sometimes in CI but passes locally, flaky';

describe('openSearch: server, else snapshot, else live', () => {
  it('with no server listening, answers from the snapshot silently as to the server (noServer)', async () => {
    const { options, socketPath } = setup();
    await indexed(options);
    const fallbacks: Fallback[] = [];
    const search = openSearch(options, { server: { socketPath }, onFallback: (why) => fallbacks.push(why) });
    try {
      const answer = await search.answer(QUERY);
      expect(answer).toMatchObject({ via: 'snapshot', skills: 6, diagnostics: [] });
      expect(answer.hits[0]?.skill.name).toBe('flaky-tests');
      expect(fallbacks).toEqual([expect.objectContaining({ from: 'server', noServer: true, untrusted: false })]);
    } finally {
      await search.close();
    }
  });

  it("asks a running server first and opens nothing in-process; an empty server's answer is not taken", async () => {
    const { options, socketPath } = setup();
    const live = await LiveIndex.open(options);
    await live.refresh();
    const server = await SkillSocketServer.listen({ path: socketPath, searcher: live.engine, size: () => live.engine.size, version: 'test' });
    let opened = 0;
    const search = new OpenedSearch({
      server: { socketPath },
      k: 3,
      mode: 'hybrid',
      openSnapshot: async () => {
        opened += 1;
        return { reason: 'not wanted' };
      },
      openLive: () => {
        opened += 1;
        return LiveIndex.open(options);
      },
    });
    try {
      const answer = await search.answer(QUERY);
      expect([answer.via, answer.skills, answer.hits[0]?.skill.name, opened]).toEqual(['server', 6, 'flaky-tests', 0]);
    } finally {
      await search.close();
      await server.close();
      await live.close();
    }
    const empty = await SkillSocketServer.listen({ path: socketPath, searcher: { search: async () => [] }, size: () => 0, version: 'test' });
    const fresh = openSearch(options, { server: { socketPath } });
    try {
      expect(await fresh.answer(QUERY)).toMatchObject({ via: 'snapshot', skills: 6 });
      expect(empty.stats.requests).toBe(1);
    } finally {
      await fresh.close();
      await empty.close();
    }
  });

  it('a server that accepts but never answers is left (reported) for the in-process paths, for good', async () => {
    const { options, socketPath } = setup();
    await indexed(options);
    mkdirSync(path.dirname(socketPath), { recursive: true });
    let requests = 0;
    const silent = net.createServer((socket) => {
      requests += 1;
      socket.resume();
    });
    await new Promise<void>((resolve) => silent.listen(socketPath, resolve));
    const fallbacks: Fallback[] = [];
    const search = openSearch(options, { server: { socketPath, requestTimeoutMs: 200 }, onFallback: (why) => fallbacks.push(why) });
    try {
      expect((await search.answer(QUERY)).via).toBe('snapshot');
      expect((await search.answer('fill in a pdf form')).via).toBe('snapshot');
      expect(fallbacks).toEqual([{ from: 'server', reason: 'search server: no answer within 200 ms', noServer: false, untrusted: false }]);
      expect(requests).toBe(1);
    } finally {
      await search.close();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('a user error from the snapshot is passed on, not retried on the live index', async () => {
    const { options } = setup();
    let liveOpened = 0;
    const snapshot: SnapshotPath = {
      search: () => Promise.reject(new SkillSearchError('BAD_OPTION', 'k must be a positive integer')),
      close: async () => undefined,
      diagnostics: [],
      engine: { size: 1, explain: () => Promise.reject(new Error('not reached')) },
    };
    const search = new OpenedSearch({
      k: 3,
      mode: 'hybrid',
      openSnapshot: async () => snapshot,
      openLive: () => {
        liveOpened += 1;
        return LiveIndex.open(options);
      },
    });
    try {
      await expect(search.answer(QUERY)).rejects.toThrow(/k must be a positive integer/);
      expect(liveOpened).toBe(0);
    } finally {
      await search.close();
    }
  });

  it('explains an empty answer alike from the snapshot and the live index', async () => {
    const { options } = setup();
    const cold = openSearch({ ...options, indexDir: path.join(tempDir(), 'cold') });
    const none = 'bake a sourdough loaf tonight';
    try {
      const live = await cold.answer(none, { explain: true });
      expect(live).toMatchObject({ via: 'live', hits: [] });
      expect(live.nothingShown?.threshold).toBeGreaterThan(0);
      await indexed(options);
      const warm = openSearch(options);
      try {
        const fromSnapshot = await warm.answer(none, { explain: true });
        expect(fromSnapshot.via).toBe('snapshot');
        expect(fromSnapshot.nothingShown).toEqual(live.nothingShown);
      } finally {
        await warm.close();
      }
    } finally {
      await cold.close();
    }
  });
});

describe('snapshotCanAnswer', () => {
  it('leaves to the live index a query it would translate: Han, or kana alone (Japanese loanwords)', () => {
    expect(snapshotCanAnswer('review the code of this pull request')).toBe(true);
    expect(snapshotCanAnswer('代码审查')).toBe(false);
    expect(snapshotCanAnswer('このプルリクエストのコードをレビューして')).toBe(false);
  });
});
