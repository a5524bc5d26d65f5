/** A js-yaml error as one line: its reason and `line N` (the YAML's first line being `firstLine`, `column M` when asked); else its message's first line. */
export function yamlProblem(error: unknown, { firstLine, column }: { readonly firstLine: number; readonly column: boolean }): string {
  const { reason, mark, message } = (error ?? {}) as { reason?: unknown; mark?: { line?: unknown; column?: unknown }; message?: unknown };
  if (typeof reason === 'string' && typeof mark?.line === 'number') {
    const line = mark.line + firstLine;
    if (!column) return `${reason} (line ${line})`;
    if (typeof mark.column === 'number') return `${reason} (line ${line}, column ${mark.column + 1})`;
  }
  return (String(message ?? error).split('\n', 1)[0] ?? '').replace(/:\s*$/, '');
}
