import { describe, expect, it } from 'vitest';
import { compactMessages, dropSkillListings, invokedSkillsAttachment } from '../../src/attachments/compaction.js';
import { SkillListingTracker } from '../../src/attachments/delta.js';
import { InvocationLog } from '../../src/attachments/invocations.js';
import { attachmentMessage, type Message } from '../../src/attachments/messages.js';
import { normalizeMessagesForAPI } from '../../src/attachments/normalize.js';
import { invokeSkill } from '../../src/attachments/skill-tool.js';
import { makeSkill } from './make-skill.js';

const commit = makeSkill('commit', { body: '# Commit' });
const huge = makeSkill('huge', { body: 'h'.repeat(6_000) });

describe('compaction', () => {
  it('drops skill_listing attachments and keeps everything else', () => {
    const history: Message[] = [
      { type: 'user', content: 'hi' },
      attachmentMessage({ type: 'skill_listing', content: '- commit: x', skillNames: ['commit'] }),
      attachmentMessage({ type: 'skill_discovery', skills: [{ name: 'pdf', description: 'PDF', source: 'skills', score: 1 }] }),
      { type: 'assistant', content: 'ok' },
    ];
    expect(dropSkillListings(history).map((m) => (m.type === 'attachment' ? m.attachment.type : m.type))).toEqual(['user', 'skill_discovery', 'assistant']);
  });

  it('keeps invoked bodies as one attachment, each cut to 5,000 characters', () => {
    const log = new InvocationLog();
    invokeSkill({ skill: 'commit' }, { skills: [commit, huge], log });
    invokeSkill({ skill: 'huge' }, { skills: [commit, huge], log });
    const attachment = invokedSkillsAttachment(log);
    expect(attachment?.skills.map((s) => s.name)).toEqual(['commit', 'huge']);
    expect(attachment?.skills[0]?.content).toBe('# Commit');
    expect(attachment?.skills[1]?.content).toBe(`${'h'.repeat(4_999)}…`);
    expect(invokedSkillsAttachment(new InvocationLog())).toBeNull();
  });

  it('compacts to summary + kept messages + invoked skills, and no listing is re-sent after', () => {
    const tracker = new SkillListingTracker();
    const log = new InvocationLog();
    const listing = tracker.next([commit, huge]);
    const history: Message[] = [{ type: 'user', content: 'commit please' }];
    if (listing !== null) history.push(attachmentMessage(listing));
    invokeSkill({ skill: 'commit' }, { skills: [commit, huge], log });

    const compacted = compactMessages({
      summary: 'Summary: the user asked for a commit.',
      invocations: log,
      keep: [attachmentMessage({ type: 'invoked_skills', skills: [{ name: 'old', content: 'stale' }] }), ...history],
    });
    expect(normalizeMessagesForAPI(compacted)).toEqual([
      { role: 'user', content: 'Summary: the user asked for a commit.', isMeta: true },
      { role: 'user', content: 'commit please' },
      {
        role: 'user',
        isMeta: true,
        content:
          '<system-reminder>\nSkills invoked earlier in this conversation. Their instructions still apply:\n\n### Skill: commit\n\n# Commit\n</system-reminder>',
      },
    ]);
    expect(tracker.next([commit, huge])).toBeNull();
  });
});
