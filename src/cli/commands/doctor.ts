import { type ParsedArgs, parsePositionalChoice } from '../args.js';
import { line } from '../context.js';
import type { CliIo } from '../io.js';
import { type DoctorContext, doctorChecks, isInstalled } from '../../hosts/doctor.js';
import { HOST_TITLES, HOSTS } from '../../types.js';
import { shown } from '../format.js';
import { hostContext, scopeOf } from './install.js';

/** `doctor [host]`: what each host has of ours; exit 1 when an installed host has a problem. */
export async function runDoctor(args: ParsedArgs, io: CliIo): Promise<number> {
  const hosts = args.positionals[0] === undefined ? HOSTS : [parsePositionalChoice('doctor', 'host', args.positionals[0], HOSTS)];
  const scope = scopeOf(args.values);
  const installContext = hostContext(args.values, io);
  const context: DoctorContext = { ...installContext, env: io.env, show: (file) => shown(file, installContext.home) };
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
