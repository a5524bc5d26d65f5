import { describe, expect, it } from 'vitest';
import { attachmentMessage, hasAttachment, skillNamesInHistory, type Message } from '../../src/attachments/messages.js';

describe('history helpers', () => {
  const history: Message[] = [
    { type: 'user', content: 'hi' },
    attachmentMessage({ type: 'skill_listing', content: '- a: x\n- b', skillNames: ['a', 'b'] }),
    attachmentMessage({ type: 'skill_discovery', skills: [{ name: 'c', description: 'x', source: 'skills', score: 0.9 }] }),
    attachmentMessage({ type: 'invoked_skills', skills: [{ name: 'd', content: '# d' }] }),
    { type: 'assistant', content: 'ok' },
  ];

  it('collects every name the model has seen, from listings, discoveries and invoked skills', () => {
    expect([...skillNamesInHistory(history)]).toEqual(['a', 'b', 'c', 'd']);
  });

  it('finds attachments by type', () => {
    expect(hasAttachment(history, 'skill_listing')).toBe(true);
    expect(hasAttachment([{ type: 'user', content: 'hi' }], 'skill_listing')).toBe(false);
  });
});
