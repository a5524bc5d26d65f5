/**
 * Notices a Claude Code plugin being installed, removed, enabled or disabled, so a long-lived catalog picks up its skills: the host's
 * files for that are stat-polled (they may not exist yet), and a change counts only when the enabled plugins moved.
 */
import { unwatchFile, watchFile, type StatWatcher } from 'node:fs';
import { claudeSettingsFiles, enabledClaudePlugins, installedPluginsFile, type ClaudePluginContext } from './claude-plugins.js';

export interface PluginWatchOptions {
  /** Milliseconds between two stats of each file. */
  readonly intervalMs: number;
  /** Called once per change of the enabled plugins (their ids and folders). */
  readonly onChange: () => void;
}

function signatureOf(context: ClaudePluginContext): string {
  return JSON.stringify(enabledClaudePlugins(context).map(({ id, root, skillDirs, commandDirs }) => [id, root, skillDirs, commandDirs]));
}

export class PluginStateWatcher {
  readonly #files: readonly string[];
  readonly #context: ClaudePluginContext;
  readonly #onChange: () => void;
  #signature: string;
  readonly #listener = (): void => this.#check();
  #closed = false;

  constructor(context: ClaudePluginContext, options: PluginWatchOptions) {
    this.#context = context;
    this.#onChange = options.onChange;
    this.#files = [installedPluginsFile(context.home), ...claudeSettingsFiles(context)];
    this.#signature = signatureOf(context);
    for (const file of this.#files) {
      // Unref'd: the skill watcher decides whether the process stays up.
      (watchFile(file, { interval: options.intervalMs, persistent: false }, this.#listener) as StatWatcher).unref();
    }
  }

  #check(): void {
    if (this.#closed) return;
    const signature = signatureOf(this.#context);
    if (signature === this.#signature) return;
    this.#signature = signature;
    this.#onChange();
  }

  /** Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const file of this.#files) unwatchFile(file, this.#listener);
  }
}
