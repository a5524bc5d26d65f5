import { type ParsedArgs, flagError, parsePositionalChoice } from '../args.js';
import { line, printJson } from '../context.js';
import { DEFAULT_MODEL } from '../flags.js';
import { table } from '../format.js';
import type { CliIo } from '../io.js';
import { megabytes, ProgressBar } from '../progress-bar.js';
import { SkillSearchError } from '../../errors.js';
import { hubEndpoint, modelsRoot } from '../../model-store/paths.js';
import { findPreset, MODEL_PRESETS, presetIds, type ModelPreset } from '../../model-store/presets.js';
import { installState, removeModel, stagedBytes, type InstallState } from '../../model-store/store.js';

const ACTIONS = ['list', 'pull', 'rm', 'info'] as const;
/** The bundled model's vector size. */
const BUNDLED_DIMENSIONS = 512;
type Action = (typeof ACTIONS)[number];

/** What `model <action>` says of the bundled model: it is never downloaded, removed or described as a preset. */
function bundledRefusal(action: Exclude<Action, 'list'>): string {
  const is = `model ${DEFAULT_MODEL} is bundled with skill-search`;
  if (action === 'rm') return `${is} and cannot be removed`;
  if (action === 'pull') return `${is}; there is nothing to pull (presets: ${presetIds().join(', ')})`;
  return `${is} (${BUNDLED_DIMENSIONS} dimensions, English, always available); 'model info' describes the presets: ${presetIds().join(', ')}`;
}

function presetArg(action: Exclude<Action, 'list'>, raw: string | undefined): ModelPreset {
  if (raw === undefined) throw flagError(`'model ${action}' needs a preset id (one of ${presetIds().join(', ')})`);
  if (raw === DEFAULT_MODEL) throw flagError(bundledRefusal(action));
  const preset = findPreset(raw);
  if (preset === undefined) throw flagError(`unknown model '${raw}' (presets: ${presetIds().join(', ')})`);
  return preset;
}

function stateText(state: InstallState, staged: number): string {
  if (state.state === 'installed') return `installed (${state.dir})`;
  if (state.state === 'broken') return `broken: ${state.reason} (pull it again)`;
  return staged > 0 ? `not installed (interrupted download, ${megabytes(staged)} kept: 'model pull' resumes it)` : 'not installed';
}

function prefixText(prefix: string): string {
  return prefix === '' ? '(none)' : JSON.stringify(prefix);
}

/** `skill-search model list | pull <id> | rm <id> | info <id>`. */
export async function runModel(args: ParsedArgs, io: CliIo): Promise<number> {
  const [rawAction, id, extra] = args.positionals;
  const action = parsePositionalChoice('model', 'command', rawAction, ACTIONS);
  const unexpected = action === 'list' ? id : extra;
  if (unexpected !== undefined) throw flagError(`unexpected argument '${unexpected}' for 'model ${action}' (see skill-search model --help)`);
  if (action !== 'pull' && (args.values.from !== undefined || args.values.force !== undefined))
    throw flagError(`--from and --force only apply to 'model pull'`);
  const root = modelsRoot(io.env);
  const json = args.values.json === true;

  if (action === 'list') {
    const rows = MODEL_PRESETS.map((preset) => ({ preset, state: installState(root, preset), staged: stagedBytes(root, preset.id) }));
    if (json) {
      const presets = rows.map(({ preset: { id, repo, dimensions, multilingual, downloadMb }, state, staged }) => {
        return { id, repo, dimensions, multilingual, downloadMb, state: state.state, dir: state.dir, stagedBytes: staged };
      });
      // The bundled model first, as in the table: a script reading the list sees every model `--model` takes.
      const bundled = { id: DEFAULT_MODEL, dimensions: BUNDLED_DIMENSIONS, multilingual: false, state: 'bundled', default: true };
      return printJson(io, { models: [bundled, ...presets] });
    }
    const lines = table([
      ['MODEL', 'DIMS', 'MULTILINGUAL', 'DOWNLOAD', 'STATE'],
      [DEFAULT_MODEL, String(BUNDLED_DIMENSIONS), 'no', 'bundled', 'default, always available'],
      ...rows.map(({ preset, state, staged }) => [
        preset.id,
        String(preset.dimensions),
        preset.multilingual ? 'yes' : 'no',
        `≈ ${preset.downloadMb} MB`,
        stateText(state, staged),
      ]),
    ]);
    for (const text of lines) line(io.stdout, text);
    line(io.stderr, `models folder: ${root}; fetch one with 'skill-search model pull <id>', use it with --model <id>`);
    return 0;
  }

  const preset = presetArg(action, id);
  if (action === 'info') {
    const state = installState(root, preset);
    if (json) return printJson(io, { ...preset, state: state.state, dir: state.dir, ...(state.state === 'installed' ? { manifest: state.manifest } : {}) });
    const rows: [string, string][] = [
      ['model', preset.id],
      ['hub repo', `${preset.repo} (revision ${preset.revision})`],
      ['ONNX file', preset.onnxFile],
      ['files', preset.files.join(', ')],
      ['pooling', preset.pooling],
      ['normalised', preset.normalize ? 'yes' : 'no (skill-search normalises anyway)'],
      ['max tokens', String(preset.maxTokens)],
      ['query prefix', prefixText(preset.queryPrefix)],
      ['passage prefix', prefixText(preset.passagePrefix)],
      ['dimensions', String(preset.dimensions)],
      ['multilingual', preset.multilingual ? 'yes' : 'no'],
      ['download', `≈ ${preset.downloadMb} MB`],
      ['facts from', preset.source],
      ['state', stateText(state, stagedBytes(root, preset.id))],
      state.state === 'installed'
        ? [
            'installed from',
            `${state.manifest.source}${state.manifest.commit === undefined ? '' : ` at commit ${state.manifest.commit}`} on ${state.manifest.installedAt}`,
          ]
        : ['install with', `skill-search model pull ${preset.id}`],
    ];
    for (const text of table(rows.map(([key, value]) => [`${key}:`, value]))) line(io.stdout, text);
    return 0;
  }

  if (action === 'rm') {
    if (!removeModel(root, preset.id)) throw new SkillSearchError('NOT_FOUND', `model ${preset.id} is not installed (nothing in ${root})`);
    if (json) printJson(io, { removed: preset.id });
    else line(io.stdout, `removed ${preset.id}`);
    return 0;
  }

  const { installFromFolder, pullModel } = await import('../../model-store/pull.js');
  const from = args.values.from;
  let result;
  if (typeof from === 'string') {
    result = await installFromFolder(preset, from, { root, ...(io.signal === undefined ? {} : { signal: io.signal }) });
  } else {
    const bar = new ProgressBar(io.stderr);
    // Without a terminal there is no bar: one line per finished file keeps a CI log informative.
    const logFiles = !bar.enabled;
    const logged = new Set<string>();
    let current = '';
    try {
      result = await pullModel(preset, {
        root,
        endpoint: hubEndpoint(io.env),
        force: args.values.force === true,
        ...(io.signal === undefined ? {} : { signal: io.signal }),
        onProgress: ({ file, received, total }) => {
          if (file !== current) {
            bar.done();
            current = file;
          }
          bar.update(`${preset.id} ${file}`, received, total, received === total);
          if (logFiles && total !== undefined && received === total && !logged.has(file)) {
            logged.add(file);
            line(io.stderr, `${preset.id}: ${file} (${megabytes(total)})`);
          }
        },
      });
    } finally {
      bar.done();
    }
  }
  if (json) {
    const { dir, fetched, downloadedBytes, resumedBytes, manifest } = result;
    return printJson(io, { id: preset.id, dir, fetched, downloadedBytes, resumedBytes, source: manifest.source, commit: manifest.commit ?? null });
  }
  if (!result.fetched) {
    line(io.stdout, `${preset.id} is already installed in ${result.dir} (--force fetches it again)`);
    return 0;
  }
  const how =
    typeof from === 'string'
      ? `copied from ${from}`
      : `${megabytes(result.downloadedBytes)} downloaded${result.resumedBytes > 0 ? `, ${megabytes(result.resumedBytes)} resumed` : ''}`;
  const checked =
    result.unverified.length === 0
      ? 'sizes and checksums verified'
      : `UNVERIFIED: no checksum was announced for ${result.unverified.join(', ')}; only checked to load as a model`;
  line(io.stdout, `installed ${preset.id} in ${result.dir} (${how}, ${checked})`);
  line(io.stderr, `use it with: skill-search query --model ${preset.id} "…"`);
  return 0;
}
