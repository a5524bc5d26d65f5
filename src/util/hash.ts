import crypto from 'node:crypto';
import path from 'node:path';

interface OneShotHash {
  (algorithm: string, data: string | Uint8Array, encoding: 'hex'): string;
  (algorithm: string, data: Uint8Array, encoding: 'buffer'): Buffer;
}
/** `crypto.hash` (Node ≥ 20.12) skips building a Hash object per call; older Nodes fall back. */
const oneShot = (crypto as unknown as { hash?: OneShotHash }).hash;

/** sha256 as hex: of a string's UTF-8, or of bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return oneShot === undefined ? crypto.createHash('sha256').update(data).digest('hex') : oneShot('sha256', data, 'hex');
}

/** sha1 of bytes, as bytes (the tools line tables' line and block hashes). */
export function sha1Bytes(data: Uint8Array): Buffer {
  return oneShot === undefined ? crypto.createHash('sha1').update(data).digest() : oneShot('sha1', data, 'buffer');
}

/** The first 16 hex digits of sha256: a file-name key, unique enough for the folders of one machine. */
export function shortHash(data: string | Uint8Array): string {
  return sha256Hex(data).slice(0, 16);
}

/** `<label>-<shortHash(key)>`: a file name a person can place (the folder's name) that `key` keeps unique. */
export function labelledName(folder: string, key: string): string {
  const label = path
    .basename(folder)
    .replace(/[^\w.-]+/g, '_')
    .slice(0, 40);
  return `${label || 'root'}-${shortHash(key)}`;
}
