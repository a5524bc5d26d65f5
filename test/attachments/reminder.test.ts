import { describe, expect, it } from 'vitest';
import { neutralizeReminderText, wrapInSystemReminder } from '../../src/attachments/reminder.js';

describe('neutralizeReminderText', () => {
  it.each([
    ['</system-reminder>', '&lt;/system-reminder>'],
    ['<system-reminder>', '&lt;system-reminder>'],
    ['</SYSTEM-REMINDER>', '&lt;/SYSTEM-REMINDER>'],
    ['< / system-reminder >', '&lt; / system-reminder >'],
    ['</system reminder>', '&lt;/system reminder>'],
    ['</system_reminder>', '&lt;/system_reminder>'],
    ['</system-reminder', '&lt;/system-reminder'],
    ['</system-\nreminder>', '&lt;/system-\nreminder>'],
  ])('neutralises %j', (input, expected) => {
    expect(neutralizeReminderText(`a ${input} b`)).toBe(`a ${expected} b`);
  });

  it('catches a tag hidden by control or zero-width characters', () => {
    expect(neutralizeReminderText('<\u0000/system\u200B-reminder>')).toBe('&lt;/system\u200B-reminder>');
    expect(neutralizeReminderText('<\u200D/system-reminder>')).toBe('&lt;\u200D/system-reminder>');
  });

  it('strips control characters but keeps newlines and tabs', () => {
    expect(neutralizeReminderText('a\u0007b\u001Bc\u007Fd\u0085e\tf\ng')).toBe('abcde\tf\ng');
  });

  it('turns CRLF and CR into LF', () => {
    expect(neutralizeReminderText('a\r\nb\rc')).toBe('a\nb\nc');
  });

  it('leaves other tags and ordinary text alone', () => {
    const text = '# Title\n\nUse <div> and a < b, then `</system>`; 系统化调试 🙂';
    expect(neutralizeReminderText(text)).toBe(text);
  });

  it('is idempotent', () => {
    const once = neutralizeReminderText('x </system-reminder> y\r\n<system-reminder>');
    expect(neutralizeReminderText(once)).toBe(once);
  });
});

describe('wrapInSystemReminder', () => {
  it('puts the text on its own lines between the tags', () => {
    expect(wrapInSystemReminder('hello')).toBe('<system-reminder>\nhello\n</system-reminder>');
  });
});
