import { z } from 'zod';
import { SkillSearchError, errorMessage } from '../errors.js';
import { ENGINE_DEFAULTS, resolveKnobs, type EngineKnobs } from '../search/options.js';
import { keyPath, readJsonFile } from '../util/json-file.js';

/** `eval --config FILE`: one run's engine knobs, shaped after {@link ENGINE_DEFAULTS} (new knobs need no change here), values checked by `resolveKnobs`. */

const NOT_IN_FILE = new Set(['relevance']);

/** The JSON type of one default value. */
function schemaFor(value: unknown): z.ZodType {
  if (typeof value === 'number') return z.number();
  if (typeof value === 'boolean') return z.boolean();
  if (typeof value === 'string') return z.string();
  if (Array.isArray(value)) return z.array(z.number());
  return z.strictObject(Object.fromEntries(Object.entries(value as object).map(([key, inner]) => [key, schemaFor(inner).optional()])));
}

const knobsSchema = z.strictObject({
  $schema: z.string().optional(),
  ...Object.fromEntries(
    Object.entries(ENGINE_DEFAULTS)
      .filter(([key]) => !NOT_IN_FILE.has(key))
      .map(([key, value]) => [key, (key === 'abstain' ? z.union([z.string(), z.number()]) : schemaFor(value)).optional()]),
  ),
});

/** A config file's knobs, as written (for the report) — checked in full before any model loads. */
export function readEngineConfig(file: string): EngineKnobs {
  const data = readJsonFile(file);
  const parsed = knobsSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    if (issue.code === 'unrecognized_keys') {
      const known = issue.path.length === 0 ? Object.keys(knobsSchema.shape).filter((key) => key !== '$schema') : undefined;
      throw new SkillSearchError(
        'BAD_FILE',
        `${file}: "${keyPath([...issue.path, issue.keys[0]!])}": unknown key${known === undefined ? '' : ` (known: ${known.join(', ')})`}`,
      );
    }
    throw new SkillSearchError('BAD_FILE', `${file}: "${keyPath(issue.path)}": ${issue.message}`);
  }
  const { $schema: _schema, ...knobs } = parsed.data as EngineKnobs & { $schema?: string };
  try {
    resolveKnobs(knobs);
  } catch (error) {
    if (!(error instanceof SkillSearchError)) throw error;
    throw new SkillSearchError('BAD_FILE', `${file}: ${errorMessage(error)}`);
  }
  return knobs;
}

/** `fieldBoosts.body=0, hnsw.efSearch=64`: the overrides of a config, one per leaf. */
export function describeOverrides(knobs: EngineKnobs): string {
  const leaves: string[] = [];
  const walk = (value: unknown, path: string): void => {
    if (typeof value === 'object' && value !== null) for (const [key, inner] of Object.entries(value)) walk(inner, path === '' ? key : `${path}.${key}`);
    else leaves.push(`${path}=${String(value)}`);
  };
  walk(knobs, '');
  return leaves.length === 0 ? 'none' : leaves.join(', ');
}
