import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';

/** A unified diff of a file's text for `--dry-run` (two lines of context); '' when nothing changes. */
export function lineDiff(before: string, after: string, label: string): string {
  if (before === after) return '';
  return createTwoFilesPatch(label, label, before, after, undefined, undefined, { context: 2, headerOptions: FILE_HEADERS_ONLY });
}
