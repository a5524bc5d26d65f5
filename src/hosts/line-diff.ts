/**
 * A unified-style line diff for `--dry-run`. Our edits are local, so the common head and
 * tail are cut first and the LCS runs on the changed middle only: O(n) for the file plus
 * O(a·b) for a middle of a and b lines.
 */

const CONTEXT = 2;

export function lineDiff(before: string, after: string, label: string): string {
  if (before === after) return '';
  const a = before.split('\n');
  const b = after.split('\n');
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  // LCS table over the middle.
  const rows = midA.length + 1;
  const cols = midB.length + 1;
  const table = new Uint32Array(rows * cols);
  for (let i = midA.length - 1; i >= 0; i--) {
    for (let j = midB.length - 1; j >= 0; j--) {
      table[i * cols + j] = midA[i] === midB[j] ? table[(i + 1) * cols + j + 1]! + 1 : Math.max(table[(i + 1) * cols + j]!, table[i * cols + j + 1]!);
    }
  }
  const body: string[] = [];
  let i = 0;
  let j = 0;
  while (i < midA.length || j < midB.length) {
    if (i < midA.length && j < midB.length && midA[i] === midB[j]) {
      body.push(` ${midA[i]}`);
      i++;
      j++;
    } else if (j < midB.length && (i === midA.length || table[i * cols + j + 1]! >= table[(i + 1) * cols + j]!)) {
      body.push(`+${midB[j]}`);
      j++;
    } else {
      body.push(`-${midA[i]}`);
      i++;
    }
  }
  const before_ = a.slice(Math.max(0, head - CONTEXT), head).map((line) => ` ${line}`);
  const after_ = a.slice(a.length - tail, Math.min(a.length, a.length - tail + CONTEXT)).map((line) => ` ${line}`);
  const start = Math.max(0, head - CONTEXT) + 1;
  return [`--- ${label}`, `+++ ${label}`, `@@ line ${start} @@`, ...before_, ...body, ...after_].join('\n') + '\n';
}
