/** What the Hugging Face hub's answers mean: a preset file's URL, announced size and hash, redirects, refusals. */
import type { IncomingMessage } from 'node:http';
import { SkillSearchError } from '../errors.js';
import { header, HttpFailure } from './http.js';
import type { ModelPreset } from './presets.js';

export const MAX_REDIRECTS = 5;

type Digest = { readonly algorithm: 'sha256' | 'git-sha1'; readonly value: string };

/** What the hub says about one file before it is fetched. */
export interface RemoteFile {
  readonly file: string;
  readonly url: URL;
  /** Where the bytes are (the CDN URL the hub redirects LFS files to). */
  readonly downloadUrl: URL;
  readonly size: number | undefined;
  readonly digest: Digest | undefined;
  /** Normalised ETag, kept beside a `.partial` to tell a moved revision from a resumable one. */
  readonly etag: string | undefined;
  readonly commit: string | undefined;
}

function resolveUrl(endpoint: string, preset: ModelPreset, file: string): URL {
  const encoded = file.split('/').map(encodeURIComponent).join('/');
  return new URL(`${endpoint.replace(/\/+$/, '')}/${preset.repo}/resolve/${encodeURIComponent(preset.revision)}/${encoded}`);
}

/** `W/"abc"` → `abc`. LFS files: the content's sha256 (64 hex); other files: their git blob sha1 (40 hex). */
function digestOf(etag: string | undefined): Digest | undefined {
  if (etag === undefined) return undefined;
  if (/^[0-9a-f]{64}$/.test(etag)) return { algorithm: 'sha256', value: etag };
  if (/^[0-9a-f]{40}$/.test(etag)) return { algorithm: 'git-sha1', value: etag };
  return undefined;
}

function normalizeEtag(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = raw.trim().replace(/^W\//, '').replace(/^"|"$/g, '').toLowerCase();
  return value === '' ? undefined : value;
}

function sizeHeader(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^\d+$/.test(raw.trim())) return undefined;
  return Number(raw);
}

/** The `location` of a redirect response; undefined for any other. */
export function redirectLocation(response: IncomingMessage): string | undefined {
  const status = response.statusCode ?? 0;
  return status >= 300 && status < 400 ? header(response, 'location') : undefined;
}

/** Where a redirect leads: an http(s) URL, or a one-line error (a hub answering `file:///etc/passwd`). */
export function redirectTarget(from: URL, location: string): URL {
  const next = URL.canParse(location, from.href) ? new URL(location, from) : undefined;
  if (next === undefined || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
    throw new SkillSearchError('NETWORK', `${from.href} redirected to '${location}', which is not an http(s) URL; nothing was installed`);
  }
  return next;
}

function offline(endpoint: string, preset: ModelPreset, failure: HttpFailure): SkillSearchError {
  return new SkillSearchError(
    'NETWORK',
    `cannot reach ${endpoint} (${failure.message}); offline? Set SKILL_SEARCH_HF_ENDPOINT to a mirror, or copy the model folder here by hand and run 'skill-search model pull ${preset.id} --from DIR'`,
    { cause: failure },
  );
}

export function refused(url: URL, response: IncomingMessage): SkillSearchError {
  const status = response.statusCode ?? 0;
  const why =
    status === 401 || status === 403
      ? 'the repository is gated or private (skill-search sends no token)'
      : status === 404
        ? 'no such file (is SKILL_SEARCH_HF_ENDPOINT a Hugging Face mirror?)'
        : 'unexpected answer';
  return new SkillSearchError('NETWORK', `${url.href} answered ${status}: ${why}`);
}

/**
 * HEAD without following redirects: the hub puts an LFS file's size and sha256 on the redirect to
 * its CDN. Same-host redirects (a renamed repo) are followed; the first cross-host one is the bytes'.
 */
export async function probeFile(head: (url: URL) => Promise<IncomingMessage>, endpoint: string, preset: ModelPreset, file: string): Promise<RemoteFile> {
  const url = resolveUrl(endpoint, preset, file);
  let current = url;
  for (let hop = 0; hop <= MAX_REDIRECTS; hop += 1) {
    const response = await head(current).catch((error: unknown) => {
      throw error instanceof HttpFailure ? offline(endpoint, preset, error) : error;
    });
    response.resume();
    const status = response.statusCode ?? 0;
    const linkedEtag = normalizeEtag(header(response, 'x-linked-etag'));
    const etag = linkedEtag ?? normalizeEtag(header(response, 'etag'));
    const commit = header(response, 'x-repo-commit');
    const location = redirectLocation(response);
    if (location !== undefined) {
      const next = redirectTarget(current, location);
      if (next.origin === current.origin && linkedEtag === undefined) {
        current = next;
        continue;
      }
      return { file, url, downloadUrl: next, size: sizeHeader(header(response, 'x-linked-size')), digest: digestOf(etag), etag, commit };
    }
    if (status < 200 || status >= 300) throw refused(current, response);
    const size = sizeHeader(header(response, 'x-linked-size')) ?? sizeHeader(header(response, 'content-length'));
    return { file, url, downloadUrl: current, size, digest: digestOf(etag), etag, commit };
  }
  throw new SkillSearchError('NETWORK', `${url.href}: more than ${MAX_REDIRECTS} redirects`);
}
