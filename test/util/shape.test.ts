import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readConfigFile } from '../../src/config/user-config.js';
import { DEMO_MODES } from '../../src/load/options.js';
import { keyPath } from '../../src/util/json-file.js';
import { array, boolean, type Check, object, oneOf, optional, type ShapeIssue, shapeIssue, string } from '../../src/util/shape.js';
import { useTempDirs } from '../support/temp-dirs.js';

// The shape checks replaced zod schemas on the cold paths (see src/util/shape.ts): each is
// compared here with the zod schema it replaced, on values of every kind, for the same verdict
// and the same first problem in the same words.

const tempDir = useTempDirs('shape');

/** zod's first issue as a shape issue: an unknown key is named at its own path. */
function zodIssue(schema: z.ZodType, value: unknown): ShapeIssue | undefined {
  const parsed = schema.safeParse(value);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0]!;
  return issue.code === 'unrecognized_keys' ? { path: [...issue.path, issue.keys[0]!], message: 'unknown key' } : { path: issue.path, message: issue.message };
}

const VALUES: readonly unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -0,
  3,
  -1,
  1.5,
  -1.5,
  2 ** 60,
  -(2 ** 60),
  Number.POSITIVE_INFINITY,
  Number.NaN,
  '',
  'a',
  'hnsw',
  'vector-data-0123456789abcdef.bin',
  [],
  ['a'],
  ['a', 'b'],
  ['a', 'b', 'c'],
  ['a', 1],
  [1, 'a'],
  [''],
  [[]],
  {},
  { a: 'x' },
  { a: 1 },
  { a: '' },
  { a: 'x', b: 2 },
  { a: 'x', b: 'y' },
  { a: 'x', extra: 1 },
  { extra: 1, a: 1 },
  { a: 'x', b: -1.5, extra: true },
  { list: [{ n: 1 }, { n: -2 }] },
  { list: [{ n: 1 }, { n: 2, m: 3 }] },
  { list: {} },
  new Date(0),
  Object.create(null),
];

const PAIRS: readonly [string, Check, z.ZodType][] = [
  ['string', string(), z.string()],
  ['non-empty string', string({ nonEmpty: true }), z.string().min(1)],
  ['non-empty string, own message', string({ nonEmpty: 'expected a non-empty pattern' }), z.string().min(1, 'expected a non-empty pattern')],
  ['boolean', boolean, z.boolean()],
  ['one of two', oneOf(['hnsw', 'exact']), z.enum(['hnsw', 'exact'])],
  ['one of one', oneOf(['a']), z.enum(['a'])],
  ['optional', optional(boolean), z.boolean().optional()],
  ['array', array(string()), z.array(z.string())],
  ['object', object({ a: string(), b: optional(string({ nonEmpty: true })) }), z.strictObject({ a: z.string(), b: z.string().min(1).optional() })],
  ['nested', object({ list: array(object({ n: oneOf(['a', 'b']) })) }), z.strictObject({ list: z.array(z.strictObject({ n: z.enum(['a', 'b']) })) })],
];

describe('each check gives the verdict and the first problem of the zod schema it replaced', () => {
  it.each(PAIRS)('%s', (_, check, schema) => {
    for (const value of VALUES) expect({ value, issue: shapeIssue(check, value) }).toEqual({ value, issue: zodIssue(schema, value) });
  });
});

/** The user config schema as it was written with zod, and the message it gave. */
const globList = z.array(z.string().min(1, 'expected a non-empty pattern'));
const zodConfig = z.strictObject({
  $schema: z.string().optional(),
  include: globList.optional(),
  exclude: globList.optional(),
  pin: globList.optional(),
  never: globList.optional(),
  library: z.array(z.string().min(1)).optional(),
  sources: z
    .strictObject({
      claudePlugins: z.boolean().optional(),
      codex: z.boolean().optional(),
      library: z.boolean().optional(),
      demo: z.enum(DEMO_MODES).optional(),
    })
    .optional(),
});

describe('the user config file: the same one-line error as with the zod schema', () => {
  it.each([
    ['{}'],
    ['{"$schema": "x", "include": ["a"], "exclude": [], "pin": ["p"], "never": ["n"], "library": ["../lib"], "sources": {"codex": false, "demo": "auto"}}'],
    ['null'],
    ['[]'],
    ['"pin"'],
    ['{"pin": "xlsx"}'],
    ['{"pins": []}'],
    ['{"pins": [], "pin": 3}'],
    ['{"never": [""]}'],
    ['{"never": ["a", 2]}'],
    ['{"library": [""]}'],
    ['{"$schema": 1}'],
    ['{"sources": null}'],
    ['{"sources": {"codex": "no"}}'],
    ['{"sources": {"demo": "sometimes"}}'],
    ['{"sources": {"plugins": true}}'],
    ['{"sources": {"plugins": true}, "extra": 1}'],
  ])('%s', (text) => {
    const dir = tempDir();
    mkdirSync(join(dir, '.claude'));
    const file = join(dir, '.claude', 'skill-search.json');
    writeFileSync(file, text);
    const issue = zodIssue(zodConfig, JSON.parse(text));
    if (issue === undefined) {
      expect(readConfigFile(file)).toEqual(JSON.parse(text));
    } else {
      expect(() => readConfigFile(file)).toThrow(`${file}: "${keyPath(issue.path)}": ${issue.message}`);
    }
  });
});
