import { readFile } from 'node:fs/promises';
import { SkillSearchError, notJson, unreadableFile } from '../errors.js';
import { isRecord } from '../util/json-file.js';

/** One labelled query (SPEC §7): `relevant` holds skill names or ids; `[]` = nothing should be suggested. */
export interface EvalQuery {
  readonly id: string;
  readonly query: string;
  readonly relevant: readonly string[];
}

function parseLine(line: string, where: string): EvalQuery {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw notJson(where, error);
  }
  if (!isRecord(value)) throw new SkillSearchError('BAD_FILE', `${where}: expected an object {"id","query","relevant"}`);
  if (typeof value.query !== 'string' || value.query.trim() === '') {
    throw new SkillSearchError('BAD_FILE', `${where}: "query" must be a non-empty string`);
  }
  if (!Array.isArray(value.relevant) || !value.relevant.every((entry) => typeof entry === 'string')) {
    throw new SkillSearchError('BAD_FILE', `${where}: "relevant" must be an array of skill names or ids`);
  }
  const id = typeof value.id === 'string' || typeof value.id === 'number' ? String(value.id) : where;
  return { id, query: value.query, relevant: value.relevant as string[] };
}

/** Reads a JSONL query file; blank lines are skipped, a bad line fails with `FILE:LINE: reason`. */
export async function readEvalQueries(file: string): Promise<EvalQuery[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw unreadableFile(file, error);
  }
  const queries: EvalQuery[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() !== '') queries.push(parseLine(line, `${file}:${i + 1}`));
  });
  return queries;
}
