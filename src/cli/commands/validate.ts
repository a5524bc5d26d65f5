import type { ParsedArgs } from '../args.js';
import { demoCount, demoNote, line, loadSnapshot, printJson } from '../context.js';
import { plural } from '../../util/text.js';
import type { CliIo } from '../io.js';
import { resolveSources } from '../sources.js';
import { escapeForTerminal } from '../../util/escape.js';
import type { Diagnostic, Skill } from '../../types.js';

/** A skill file whose only `when_to_use` is the camelCase key: searched here, but Claude Code never sends it (a tools file's `whenToUse` is ours). */
function camelCaseWhenToUse(skills: readonly Skill[]): Diagnostic[] {
  return skills
    .filter((skill) => skill.whenToUseKey === 'whenToUse' && /\.md$/i.test(skill.path))
    .map((skill) => ({
      code: 'bad-field',
      severity: 'warning',
      path: skill.path,
      message: '`whenToUse` is ignored by Claude Code, which reads only `when_to_use` (skill-search still searches it)',
    }));
}

/** Every problem file and every shadowed name, one line each; exit 1 when a skill failed to load. */
export async function runValidate(args: ParsedArgs, io: CliIo): Promise<number> {
  const sources = resolveSources(args.values, io);
  const [{ formatDiagnostic, formatShadowed }, snapshot] = await Promise.all([import('../../load/index.js'), loadSnapshot(sources)]);
  const diagnostics = [...snapshot.diagnostics, ...camelCaseWhenToUse(snapshot.skills)];
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const ok = errors === 0;
  const ruled = await (await import('./host-profile.js')).ruledSkills(sources, snapshot.skills, { codex: true });

  if (args.values.json === true) {
    printJson(io, {
      ok,
      skills: snapshot.skills.length,
      demo: demoCount(snapshot.skills),
      errors,
      warnings,
      diagnostics: diagnostics.map(({ code, severity, path, message }) => ({ code, severity, path, message })),
      shadowed: snapshot.shadowed,
      excluded: snapshot.excluded,
      ruled: ruled.map(({ skill, note }) => ({ name: skill.name, path: skill.path, reason: note })),
    });
    return ok ? 0 : 1;
  }
  for (const diagnostic of diagnostics) {
    line(io.stdout, diagnostic.severity === 'error' ? formatDiagnostic(diagnostic) : `${formatDiagnostic(diagnostic)} (loaded anyway)`);
  }
  for (const shadowed of snapshot.shadowed) line(io.stdout, formatShadowed(shadowed));
  // Not problems: host rules the skill's author set, shown so nobody wonders where a skill went.
  for (const { skill, note } of ruled) line(io.stdout, `skill-search: ${escapeForTerminal(skill.path)}: ${escapeForTerminal(skill.name)} is ${note}`);
  const demo = demoNote(snapshot.skills);
  line(
    io.stdout,
    `${plural(snapshot.skills.length, 'skill')} loaded${demo === '' ? '' : `, ${demo}`}; ${plural(errors, 'error')}, ${plural(warnings, 'warning')}, ${snapshot.shadowed.length} shadowed${snapshot.excluded === 0 ? '' : `, ${snapshot.excluded} left out by the config's include/exclude`}`,
  );
  return ok ? 0 : 1;
}
