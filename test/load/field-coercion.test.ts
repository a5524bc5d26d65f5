import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validateFields } from '../../src/load/fields.js';
import { DEFAULT_SKILL_LIMITS } from '../../src/load/skill.js';
import { EFFORTS } from '../../src/types.js';

// Skill fields were coerced by zod schemas, now by plain code (zod stays off the cold paths):
// each field's value, on values of every kind YAML or a tools line can give, comes out as it
// did through the schemas it replaced.

const scalar = z.union([z.string(), z.number(), z.boolean(), z.date()]).transform((value) => (value instanceof Date ? value.toISOString() : String(value)));
const text = z.union([scalar, z.array(scalar).transform((items) => items.join(', '))]);
const effort = z
  .string()
  .transform((value) => value.trim().toLowerCase())
  .pipe(z.enum(EFFORTS));

const context = { path: '/skills/coerce/SKILL.md', defaultName: 'coerce', limits: DEFAULT_SKILL_LIMITS };

const SCALARS: readonly unknown[] = [
  'Plain text',
  '  padded  ',
  '',
  0,
  -0,
  42,
  1.5,
  1e21,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  false,
  new Date(Date.UTC(2024, 1, 29, 12)),
  new Date(Number.NaN),
  { nested: true },
  Object.create(null),
  10n,
  Symbol('s'),
  () => 1,
];
const VALUES: readonly unknown[] = [
  ...SCALARS,
  [],
  ['a', 'b'],
  ['one', 2, true],
  [['nested']],
  ['a', { b: 1 }],
  [new Date(0), Number.NaN],
  'HIGH',
  ' Medium ',
  'lowish',
];

const parsed = (schema: z.ZodType<string>, value: unknown) => {
  const result = schema.safeParse(value);
  return result.success ? result.data : undefined;
};

describe('skill fields coerce as the zod schemas did', () => {
  it('name: a scalar, trimmed; anything else stops the skill', () => {
    let accepted = 0;
    for (const value of VALUES) {
      const { fields } = validateFields({ name: value, description: 'd' }, context);
      const expected = parsed(scalar, value);
      const name = expected === undefined ? undefined : expected.trim() === '' ? 'coerce' : expected.trim();
      // A name the scalar accepts may still be refused as a name (e.g. `1.5`): only compare accepted ones.
      if (expected === undefined) expect({ value, fields }).toEqual({ value, fields: undefined });
      else if (fields !== undefined) {
        expect({ value, name: fields.name }).toEqual({ value, name });
        accepted++;
      }
    }
    expect(accepted).toBeGreaterThanOrEqual(5);
  });

  it('description and when_to_use: a scalar or a list of scalars, joined', () => {
    for (const value of VALUES) {
      const expected = parsed(text, value)?.trim();
      const { fields } = validateFields({ description: value }, context);
      expect({ value, description: fields?.description }).toEqual({ value, description: expected === '' ? undefined : expected });
      const when = validateFields({ description: 'd', when_to_use: value }, context);
      expect({ value, whenToUse: when.fields?.whenToUse }).toEqual({ value, whenToUse: expected === '' ? undefined : expected });
    }
  });

  it('keywords: each item a scalar, split at commas', () => {
    for (const value of VALUES) {
      const items = Array.isArray(value) ? value : [value];
      const texts = items.map((item) => parsed(scalar, item));
      const expected = texts.every((item) => item !== undefined)
        ? texts.flatMap((item) => item.split(',').map((word) => word.trim())).filter((word) => word !== '')
        : [];
      const { fields } = validateFields({ description: 'd', tags: value }, context);
      expect({ value, keywords: fields?.keywords }).toEqual({ value, keywords: expected.length === 0 ? undefined : expected });
    }
  });

  it('effort: one of the levels in any case, else ignored', () => {
    for (const value of VALUES) {
      const { fields } = validateFields({ description: 'd', effort: value }, context);
      expect({ value, effort: fields?.effort }).toEqual({ value, effort: parsed(effort, value) });
    }
  });
});
