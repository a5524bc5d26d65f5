import { describe, expect, it } from 'vitest';
import { SkillListingTracker } from '../../src/attachments/delta.js';
import { formatSkillListing } from '../../src/attachments/listing.js';
import { attachmentMessage, skillNamesInHistory } from '../../src/attachments/messages.js';
import { renderAttachment } from '../../src/attachments/normalize.js';
import { SkillCatalog } from '../../src/load/catalog.js';
import { SkillPrefetcher } from '../../src/prefetch/prefetcher.js';
import { hit, staticSearcher } from '../prefetch/fake-searcher.js';
import { makeSkill } from './make-skill.js';

describe('the listing as the seed renders it', () => {
  it('cuts a long description at 250 characters ending in … in the rendered reminder', () => {
    const long = makeSkill('long', { description: 'd'.repeat(400) });
    const listing = formatSkillListing([long]);
    const rendered = renderAttachment({ type: 'skill_listing', content: listing.content, skillNames: listing.skillNames });
    const line = rendered?.split('\n').find((text) => text.startsWith('- long: '));
    const part = line?.slice('- long: '.length);
    expect(part).toHaveLength(250);
    expect(part?.endsWith(`${'d'.repeat(249)}…`)).toBe(true);
  });

  it('keeps descriptions as written: full-width letters are not folded', () => {
    const pdf = makeSkill('pdf', { description: 'ＰＤＦ の フォーム', whenToUse: 'when a ＰＤＦ is attached' });
    const listing = formatSkillListing([pdf]);
    expect(renderAttachment({ type: 'skill_listing', content: listing.content, skillNames: listing.skillNames })).toContain(
      '- pdf: ＰＤＦ の フォーム - when a ＰＤＦ is attached',
    );
    expect(renderAttachment({ type: 'skill_discovery', skills: [{ ...pdf, score: 1 }] })).toContain('- pdf: ＰＤＦ の フォーム');
  });
});

describe('a name the budget listed without its description is still discoverable', () => {
  const skills = Array.from({ length: 6 }, (_, i) => makeSkill(`skill-${i}`, { description: `What skill ${i} does, at some length` }));

  it('is announced (not re-listed next turn) but not visible', async () => {
    const tracker = new SkillListingTracker();
    const listing = tracker.next(skills, { budgetChars: 150 });
    expect(listing?.skillNames).toHaveLength(6);
    const shortened = skills.map((skill) => skill.name).filter((name) => !listing?.visibleNames?.includes(name));
    expect(shortened.length).toBeGreaterThan(0);
    expect(tracker.next(skills, { budgetChars: 150 })).toBeNull();

    const visible = skillNamesInHistory([attachmentMessage(listing!)]);
    const target = skills.find((skill) => skill.name === shortened[0])!;
    const discovery = await new SkillPrefetcher({ searcher: staticSearcher([hit(target, 0.9)]) }).start({ userMessage: 'x', visible }).collect();
    expect(discovery?.skills.map((skill) => skill.name)).toEqual([target.name]);
  });
});

describe('SkillListingTracker.follow', () => {
  it('resets on each change of a catalog, so the next turn announces everything current, until unfollowed', async () => {
    const catalog = new SkillCatalog({
      cwd: '/',
      home: '/nonexistent-home',
      managedDir: null,
      bundledDir: null,
      claudePlugins: false,
      codexHome: null,
      demo: 'never',
      watch: false,
    });
    try {
      catalog.registerMcpSkills('tracker', [{ name: 'jira', description: 'Jira tickets' }]);
      const tracker = new SkillListingTracker();
      const unfollow = tracker.follow(catalog);
      const first = (await catalog.get()).skills;
      expect(tracker.next(first)?.skillNames).toEqual(['jira']);
      expect(tracker.next(first)).toBeNull();
      catalog.registerMcpSkills('wiki', [{ name: 'confluence', description: 'Wiki pages' }]);
      expect(tracker.next((await catalog.get()).skills)?.skillNames).toEqual(['jira', 'confluence']);
      unfollow();
      catalog.unregisterMcpServer('wiki');
      expect(tracker.next((await catalog.get()).skills)).toBeNull();
    } finally {
      await catalog.close();
    }
  });
});
