import path from 'node:path';
import type { ParsedArgs } from '../args.js';
import { flagError, parseChoice } from '../args.js';
import { line } from '../context.js';
import type { CliIo } from '../io.js';
import { homeDir } from '../io.js';
import { requirePath } from '../sources.js';
import { resolveHostCommand } from '../../hosts/command.js';
import { type DoctorContext, doctorChecks, isInstalled } from '../../hosts/doctor.js';
import type { InstallScope } from '../../hosts/install.js';
import { HOST_TITLES, HOSTS } from '../../types.js';
import { shown } from './install.js';

/** `doctor [host]`: what each host has of ours; exit 1 when an installed host has a problem. */
export async function runDoctor(args: ParsedArgs, io: CliIo): Promise<number> {
  const hosts = args.positionals[0] === undefined ? HOSTS : [parseChoice('host', args.positionals[0], HOSTS)];
  if (args.values.project === true && args.values.user === true) throw flagError('--project and --user cannot be used together');
  const scope: InstallScope = args.values.project === true ? 'project' : 'user';
  const home = homeDir(io.env);
  const cwdRaw = args.values.cwd;
  const cwd = typeof cwdRaw === 'string' ? requirePath('cwd', cwdRaw, 'directory', io.cwd) : path.resolve(io.cwd);
  const show = (file: string) => shown(file, home);
  const context: DoctorContext = {
    home,
    cwd,
    codexHome: io.env.CODEX_HOME ? path.resolve(io.env.CODEX_HOME) : path.join(home, '.codex'),
    command: resolveHostCommand(io.env),
    env: io.env,
    show,
  };
  let failed = false;
  for (const host of hosts) {
    const checks = doctorChecks(host, scope, context);
    if (!isInstalled(checks)) {
      line(io.stdout, `${HOST_TITLES[host]} (${scope}): not installed ('skill-search install ${host}${scope === 'project' ? ' --project' : ''}' adds it)`);
      continue;
    }
    line(io.stdout, `${HOST_TITLES[host]} (${scope}):`);
    for (const check of checks) {
      if (check.status !== 'ok') failed = true;
      const mark = { ok: 'ok     ', problem: 'PROBLEM', absent: 'MISSING' }[check.status];
      line(io.stdout, `  ${mark} ${check.what}: ${check.detail}${check.fix === undefined ? '' : `; fix: ${check.fix}`}`);
    }
  }
  return failed ? 1 : 0;
}
