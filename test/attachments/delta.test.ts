import { describe, expect, it } from 'vitest';
import { SkillListingTracker } from '../../src/attachments/delta.js';
import { attachmentMessage, type Message } from '../../src/attachments/messages.js';
import { makeSkill } from './make-skill.js';

const commit = makeSkill('commit', { description: 'Create a git commit' });
const pdf = makeSkill('pdf', { description: 'Read PDFs' });
const xlsx = makeSkill('xlsx', { description: 'Spreadsheets' });

describe('SkillListingTracker', () => {
  it('announces everything on the first turn, then only new names', () => {
    const tracker = new SkillListingTracker();
    expect(tracker.next([commit, pdf])).toEqual({
      type: 'skill_listing',
      content: '- commit: Create a git commit\n- pdf: Read PDFs',
      skillNames: ['commit', 'pdf'],
      visibleNames: ['commit', 'pdf'],
    });
    expect(tracker.next([commit, pdf])).toBeNull();
    expect(tracker.next([commit, pdf, xlsx])).toEqual({
      type: 'skill_listing',
      content: '- xlsx: Spreadsheets',
      skillNames: ['xlsx'],
      visibleNames: ['xlsx'],
    });
  });

  it('tracks each agent id separately; the main thread is its own key', () => {
    const tracker = new SkillListingTracker();
    expect(tracker.next([commit])?.skillNames).toEqual(['commit']);
    expect(tracker.next([commit], { agentId: 'sub-1' })?.skillNames).toEqual(['commit']);
    expect(tracker.next([commit, pdf], { agentId: 'sub-1' })?.skillNames).toEqual(['pdf']);
    expect(tracker.next([commit, pdf])?.skillNames).toEqual(['pdf']);
    expect(tracker.next([commit, pdf], { agentId: 'sub-2' })?.skillNames).toEqual(['commit', 'pdf']);
    expect([...tracker.announced()]).toEqual(['commit', 'pdf']);
  });

  it('announces everything current after reset (a skill file changed)', () => {
    const tracker = new SkillListingTracker();
    tracker.next([commit, pdf]);
    tracker.next([commit], { agentId: 'sub' });
    tracker.reset();
    expect(tracker.next([pdf, xlsx])?.content).toBe('- pdf: Read PDFs\n- xlsx: Spreadsheets');
    expect(tracker.next([commit], { agentId: 'sub' })?.skillNames).toEqual(['commit']);
  });

  it('does not re-announce a name a higher-ranked skill now shadows', () => {
    const tracker = new SkillListingTracker();
    tracker.next([pdf]);
    expect(tracker.next([makeSkill('pdf', { source: 'bundled', description: 'Bundled pdf' }), pdf])).toBeNull();
  });

  it('suppresses the next listing on resume when the history holds one', () => {
    const history: Message[] = [
      { type: 'user', content: 'hi' },
      attachmentMessage({ type: 'skill_listing', content: '- commit: Create a git commit', skillNames: ['commit'] }),
    ];
    const tracker = new SkillListingTracker();
    expect(tracker.suppressIfResumed(history)).toBe(true);
    expect(tracker.next([commit, pdf])).toBeNull();
    expect(tracker.next([commit, pdf])).toBeNull();
    expect(tracker.next([commit, pdf, xlsx])?.skillNames).toEqual(['xlsx']);
  });

  it('does not suppress when the resumed history has no listing', () => {
    const tracker = new SkillListingTracker();
    expect(tracker.suppressIfResumed([{ type: 'user', content: 'hi' }])).toBe(false);
    expect(tracker.next([commit])?.skillNames).toEqual(['commit']);
  });

  it('suppression is per agent', () => {
    const tracker = new SkillListingTracker();
    tracker.suppressNext('sub');
    expect(tracker.next([commit], { agentId: 'sub' })).toBeNull();
    expect(tracker.next([commit])?.skillNames).toEqual(['commit']);
  });

  it('applies the listing budget to the delta and still records every new name', () => {
    const tracker = new SkillListingTracker();
    const many = Array.from({ length: 12 }, (_, i) => makeSkill(`skill-${String(i + 1).padStart(2, '0')}`));
    const first = tracker.next(many, { budgetChars: 160 });
    expect(first?.content).toContain('(9 skills not listed: even names alone exceed the listing budget)');
    expect(first?.skillNames).toHaveLength(12);
    expect(tracker.next(many, { budgetChars: 160 })).toBeNull();
  });
});
