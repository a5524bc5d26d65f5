import path from 'node:path';
import { type ParsedArgs, parsePositionalChoice } from '../args.js';
import { line } from '../context.js';
import type { CliIo } from '../io.js';
import { type Check, type DoctorContext, doctorChecks, isInstalled } from '../../hosts/doctor.js';
import { HOST_TITLES, HOSTS } from '../../types.js';
import { shown } from '../format.js';
import { hostContext, scopeOf } from './install.js';
import { searchChecks } from './doctor-search.js';

const SECTIONS = [...HOSTS, 'search'] as const;
const MARKS = { ok: 'ok     ', warn: 'WARN   ', problem: 'PROBLEM', absent: 'MISSING' } as const;

/** `doctor [host|search]`: what each host has of ours, then what searches use; exit 1 when an installed host or the search has a problem. */
export async function runDoctor(args: ParsedArgs, io: CliIo): Promise<number> {
  const only = args.positionals[0] === undefined ? undefined : parsePositionalChoice('doctor', 'host', args.positionals[0], SECTIONS);
  const hosts = only === undefined ? HOSTS : HOSTS.filter((host) => host === only);
  const scope = scopeOf(args.values);
  const installContext = hostContext(args.values, io);
  const context: DoctorContext = { ...installContext, env: io.env, show: (file) => shown(file, installContext.home) };
  // First: a flag that names nothing is an error before any report.
  const search = only === undefined || only === 'search' ? await searchChecks(args.values, io, context) : undefined;
  let failed = false;
  const report = (check: Check) => {
    if (check.status === 'problem' || check.status === 'absent') failed = true;
    line(io.stdout, `  ${MARKS[check.status]} ${check.what}: ${check.detail}${check.fix === undefined ? '' : `; fix: ${check.fix}`}`);
  };
  // Without --user or --project, an install for this project only (`install --project`) is the one reported.
  const projectToo = args.values.user !== true && args.values.project !== true && path.resolve(context.cwd) !== path.resolve(context.home);
  for (const host of hosts) {
    let shownScope = scope;
    let checks = doctorChecks(host, scope, context);
    if (!isInstalled(checks) && projectToo) {
      const project = doctorChecks(host, 'project', context);
      if (isInstalled(project)) [shownScope, checks] = ['project', project];
    }
    if (!isInstalled(checks)) {
      line(io.stdout, `${HOST_TITLES[host]} (${scope}): not installed ('skill-search install ${host}${scope === 'project' ? ' --project' : ''}' adds it)`);
      continue;
    }
    line(io.stdout, `${HOST_TITLES[host]} (${shownScope}):`);
    for (const check of checks) report(check);
  }
  if (search !== undefined) {
    line(io.stdout, 'Search (what the hook, query and the MCP server use):');
    for (const check of search) report(check);
  }
  return failed ? 1 : 0;
}
