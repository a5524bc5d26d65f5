import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { main } from '../../src/cli/main.js';
import { reportError } from '../../src/cli/run.js';
import { SkillSearchError } from '../../src/errors.js';
import { SKILLS, removeDir, runCli, tempDir } from './helpers.js';

const cache = tempDir();
afterAll(() => removeDir(cache));

describe('flags: one line naming the flag and the value, exit 1', () => {
  it.each([
    [['query', '--foo', 'x'], "skill-search: unknown option '--foo' for 'query' (see skill-search query --help)\n"],
    [['list', '-x'], "skill-search: unknown option '-x' for 'list' (see skill-search list --help)\n"],
    [['query', '--k', '0', 'x'], "skill-search: --k expects a positive integer, got '0'\n"],
    [['query', '--k', '2.5', 'x'], "skill-search: --k expects a positive integer, got '2.5'\n"],
    [['query', '--mode', 'foo', 'x'], "skill-search: --mode expects one of hybrid, dense, lexical, got 'foo'\n"],
    [['query', 'x', '--k'], "skill-search: option '--k' needs a value (see skill-search query --help)\n"],
    [['validate', '--json=yes'], "skill-search: option '--json' takes no value, got 'yes' (see skill-search validate --help)\n"],
    [['query'], "skill-search: 'query' needs a message (see skill-search query --help)\n"],
    // A command that reads skills from flags only says which flag takes a path given bare.
    [['list', 'extra'], "skill-search: unexpected argument 'extra' for 'list' (to read skills from it: --skills-dir 'extra') (see skill-search list --help)\n"],
    [
      ['validate', './skills'],
      "skill-search: unexpected argument './skills' for 'validate' (to read skills from it: --skills-dir './skills') (see skill-search validate --help)\n",
    ],
    [
      ['tokens', 'tools.JSONL'],
      "skill-search: unexpected argument 'tools.JSONL' for 'tokens' (to read skills from it: --tools 'tools.JSONL') (see skill-search tokens --help)\n",
    ],
    [['config', 'extra'], "skill-search: unexpected argument 'extra' for 'config' (see skill-search config --help)\n"],
    [['eval', '--skills-dir', SKILLS], "skill-search: 'eval' needs --queries FILE (see skill-search eval --help)\n"],
    [['list', '--context-window', 'big'], "skill-search: --context-window expects a positive integer, got 'big'\n"],
    // The hook's flag mistakes exit 0 (test/integrations/claude-code-hook.test.ts): it never fails a prompt.
    [['list', '--demo', '--no-demo'], 'skill-search: --demo and --no-demo contradict each other; give one\n'],
    [['frobnicate'], "skill-search: unknown command 'frobnicate' (see skill-search --help)\n"],
    [['--frobnicate'], "skill-search: unknown option '--frobnicate' (see skill-search --help)\n"],
    // Did you mean: commands, options, and a command's first word, naming the argument it is.
    [['querry', 'x'], "skill-search: unknown command 'querry' (did you mean 'query'?) (see skill-search --help)\n"],
    [['--verison'], "skill-search: unknown option '--verison' (did you mean '--version'?) (see skill-search --help)\n"],
    [['query', '--jsn', 'x'], "skill-search: unknown option '--jsn' for 'query' (did you mean '--json'?) (see skill-search query --help)\n"],
    [['library', 'frob'], "skill-search: unknown command 'frob' for 'library'; expected add, list, path or remove (see skill-search library --help)\n"],
    [
      ['library', 'lst'],
      "skill-search: unknown command 'lst' for 'library' (did you mean 'list'?); expected add, list, path or remove (see skill-search library --help)\n",
    ],
    [['install', 'cursor'], "skill-search: unknown host 'cursor' for 'install'; expected claude-code or codex (see skill-search install --help)\n"],
    [
      ['uninstall', 'codx'],
      "skill-search: unknown host 'codx' for 'uninstall' (did you mean 'codex'?); expected claude-code or codex (see skill-search uninstall --help)\n",
    ],
    // doctor's host is an argument, not a flag: the message says so.
    [
      ['doctor', 'claude'],
      "skill-search: unknown host 'claude' for 'doctor' (did you mean 'claude-code'?); expected claude-code, codex or search (see skill-search doctor --help)\n",
    ],
    [
      ['model', 'pul'],
      "skill-search: unknown command 'pul' for 'model' (did you mean 'pull'?); expected list, pull, rm or info (see skill-search model --help)\n",
    ],
  ])('%j', async (argv, stderr) => {
    const result = await runCli(argv, cache);
    expect(result).toEqual({ code: 1, stdout: '', stderr });
  });

  it('names a missing --skills-dir, --tools, --add-dir, --cwd and --queries path', async () => {
    const cases: [string[], string][] = [
      [['validate', '--skills-dir', 'no/such/dir'], "skill-search: --skills-dir 'no/such/dir': no such directory\n"],
      [['validate', '--tools', 'missing.jsonl'], "skill-search: --tools 'missing.jsonl': no such file\n"],
      [['validate', '--add-dir', 'nowhere'], "skill-search: --add-dir 'nowhere': no such directory\n"],
      [['validate', '--cwd', 'nowhere'], "skill-search: --cwd 'nowhere': no such directory\n"],
      [['validate', '--tools', SKILLS], `skill-search: --tools '${SKILLS}': not a file\n`],
      [['eval', '--queries', 'q.jsonl', '--skills-dir', SKILLS], "skill-search: --queries 'q.jsonl': no such file\n"],
    ];
    for (const [argv, stderr] of cases) {
      expect(await runCli(argv, cache)).toEqual({ code: 1, stdout: '', stderr });
    }
  });
});

describe('help and version', () => {
  it('lists every command at the top level', async () => {
    const result = await runCli(['--help'], cache);
    expect(result.code).toBe(0);
    for (const name of Object.keys(COMMANDS)) expect(result.stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
    // `hook` serves both hosts it installs into.
    expect(result.stdout).toMatch(/^ {2}hook +The UserPromptSubmit hook of Claude Code or Codex:/m);
  });

  it('prints usage to stderr and exits 1 without a command', async () => {
    const result = await runCli([], cache);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Usage: skill-search <command> \[options\]/);
  });

  it.each(Object.keys(COMMANDS))('%s --help shows usage and every option with its default', async (name) => {
    const spec = COMMANDS[name]!;
    for (const flag of ['--help', '-h']) {
      const result = await runCli([name, flag], cache);
      expect(result.code).toBe(0);
      expect(result.stdout.startsWith(`Usage: skill-search ${name} `)).toBe(true);
      for (const [option, optionSpec] of Object.entries(spec.options)) {
        const row = result.stdout.split('\n').find((text) => text.startsWith(`  --${option}`));
        expect(row, `--${option}`).toBeDefined();
        if (optionSpec.defaultText) expect(row).toContain(`default: ${optionSpec.defaultText}`);
      }
    }
  });

  it('shows the documented defaults for query', async () => {
    const { stdout } = await runCli(['query', '--help'], cache);
    expect(stdout).toMatch(/--k N +number of results \(default: 5\)/);
    expect(stdout).toMatch(/--mode MODE +retrieval: hybrid, dense or lexical \(default: hybrid\)/);
    expect(stdout).toMatch(/--model NAME .*\(default: use-lite\)/);
    expect(stdout).toMatch(/--skills-dir DIR .*\(repeatable; default: the standard skill folders for --cwd\)/);
  });

  it('help wins over other problems on the line', async () => {
    const result = await runCli(['query', '--k', '0', '--help'], cache);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: skill-search query');
  });

  it('prints the package version', async () => {
    const result = await runCli(['--version'], cache);
    expect(result).toEqual({ code: 0, stdout: '0.1.0\n', stderr: '' });
  });
});

describe('exit 2', () => {
  it('an unexpected exception inside a command prints the stack and exits 2', async () => {
    let stderr = '';
    const code = await main(['--version'], {
      stdout: {
        write() {
          throw new TypeError('stdout is broken');
        },
      },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      readStdin: async () => '',
      env: {},
      cwd: process.cwd(),
    });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^skill-search: internal error: TypeError: stdout is broken\n {4}at /);
  });

  it('--index-dir naming a file is a user error', async () => {
    const result = await runCli(['query', '--skills-dir', SKILLS, '--index-dir', SKILLS + '/pdf-forms/SKILL.md', 'x'], cache);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `skill-search: --index-dir '${SKILLS}/pdf-forms/SKILL.md': cannot create it (${SKILLS}/pdf-forms/SKILL.md is a file)\n`,
    });
  });

  it('--index-dir under a file, or where no folder can be made, is one line and no loop', async () => {
    const result = await runCli(['query', '--skills-dir', SKILLS, '--index-dir', `${SKILLS}/pdf-forms/SKILL.md/idx`, 'x'], cache);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `skill-search: --index-dir '${SKILLS}/pdf-forms/SKILL.md/idx': cannot create it (${SKILLS}/pdf-forms/SKILL.md is a file)\n`,
    });
    // Node's recursive mkdir spins forever on /proc (ENOENT on every try); ours makes each level once.
    if (process.platform === 'linux') {
      const proc = await runCli(['query', '--skills-dir', SKILLS, '--index-dir', '/proc/idx', 'x'], cache);
      expect(proc).toEqual({ code: 1, stdout: '', stderr: "skill-search: --index-dir '/proc/idx': cannot create it (ENOENT at /proc/idx)\n" });
    }
  });
});

describe('reportError', () => {
  const capture = () => {
    let text = '';
    return { io: { stderr: { write: (chunk: string) => (text += chunk) } }, text: () => text };
  };

  it('prints a user error as its one line, exit 1', () => {
    const out = capture();
    expect(reportError(new SkillSearchError('BAD_FILE', 'x.jsonl:3: not valid JSON'), out.io)).toBe(1);
    expect(out.text()).toBe('skill-search: x.jsonl:3: not valid JSON\n');
  });

  it('prints a bug with its stack, exit 2', () => {
    const out = capture();
    expect(reportError(new TypeError('cannot read properties of undefined'), out.io)).toBe(2);
    expect(out.text()).toMatch(/^skill-search: internal error: TypeError: cannot read properties of undefined\n {4}at /);
  });

  it('treats an internal-coded SkillSearchError as a bug', () => {
    const out = capture();
    expect(reportError(new SkillSearchError('INDEX_CORRUPT', 'bad manifest'), out.io)).toBe(2);
    expect(out.text()).toMatch(/^skill-search: internal error: SkillSearchError: skill-search: bad manifest\n/);
  });
});
