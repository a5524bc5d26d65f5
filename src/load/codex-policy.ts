/** Codex's `agents/openai.yaml`: only `policy.allow_implicit_invocation`; a missing file says nothing, a broken one warns and leaves the default. */
import type { Diagnostic } from '../types.js';
import { isRecord } from '../util/json-file.js';
import type { CodexPolicy } from './invocation.js';
import { readSkillText } from './read-file.js';
import { diagnostic } from './skill.js';
import { matter, yamlProblem } from './yaml.js';

/** The file is a few hundred bytes; larger ones are read up to this size. */
const MAX_POLICY_BYTES = 64 * 1024;

export interface PolicyRead {
  readonly policy: CodexPolicy | undefined;
  readonly diagnostic?: Diagnostic;
}

export async function readCodexPolicy(file: string): Promise<PolicyRead> {
  const read = await readSkillText(file, MAX_POLICY_BYTES);
  if (read.state === 'gone') return { policy: undefined };
  const warn = (message: string): PolicyRead => ({
    policy: undefined,
    diagnostic: diagnostic('bad-yaml', file, `${message}; Codex's default policy applies`, 'warning'),
  });
  if (read.state === 'failed') return warn(read.diagnostic.message);
  let data: unknown;
  try {
    data = matter().engines.yaml.parse(read.text);
  } catch (error) {
    return warn(`is not valid YAML: ${yamlProblem(error, { firstLine: 1, column: true })}`);
  }
  const policy = isRecord(data) ? data['policy'] : undefined;
  const allow = isRecord(policy) ? policy['allow_implicit_invocation'] : undefined;
  if (allow === undefined || allow === null) return { policy: undefined };
  if (typeof allow !== 'boolean') return warn(`\`policy.allow_implicit_invocation\` must be true or false, got ${JSON.stringify(allow)}`);
  return { policy: { allowImplicitInvocation: allow } };
}
