import { closeSync, fstatSync, fsyncSync, openSync, readFileSync, ftruncateSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { sha256Hex } from '../util/hash.js';
import { PRIVATE_FILE_MODE } from '../vector-index/atomic-file.js';

/**
 * An append-only file of records: the changes saved since an artefact's base file. Each record
 * is framed as `u32 LE body length · first 8 bytes of sha256(body) · body` and written with one
 * `write` followed by an fsync, so one save costs the size of its own changes, never the size
 * of the index.
 *
 * A reader takes records up to the first one that is short or fails its checksum: a crash while
 * appending loses at most that save (its skills are then found stale and saved again). The
 * next append cuts such a torn tail off first, so later records stay readable.
 */
const FRAME_BYTES = 12;
const CHECK_BYTES = 8;

export interface LogRead {
  readonly records: readonly Buffer[];
  /** Bytes up to the end of the last valid record. */
  readonly validBytes: number;
}

/** The valid records of `file`; none when it is missing. */
export function readLog(file: string): LogRead {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch {
    return { records: [], validBytes: 0 };
  }
  return parseLog(data);
}

function parseLog(data: Buffer): LogRead {
  const records: Buffer[] = [];
  let offset = 0;
  while (offset + FRAME_BYTES <= data.length) {
    const length = data.readUInt32LE(offset);
    const end = offset + FRAME_BYTES + length;
    if (end > data.length) break;
    const body = data.subarray(offset + FRAME_BYTES, end);
    if (sha256Hex(body).slice(0, 2 * CHECK_BYTES) !== data.toString('hex', offset + 4, offset + FRAME_BYTES)) break;
    records.push(body);
    offset = end;
  }
  return { records, validBytes: offset };
}

/** Appends one record durably (creating the file 0600), first cutting off a torn tail left by a crash. */
export function appendLog(file: string, body: Uint8Array): void {
  const frame = Buffer.alloc(FRAME_BYTES + body.length);
  frame.writeUInt32LE(body.length, 0);
  frame.write(sha256Hex(body).slice(0, 2 * CHECK_BYTES), 4, CHECK_BYTES, 'hex');
  frame.set(body, FRAME_BYTES);
  const fd = openSync(file, 'a+', PRIVATE_FILE_MODE);
  let created = false;
  try {
    const size = fstatSync(fd).size;
    created = size === 0;
    if (size > 0) {
      const { validBytes } = parseLog(readFileSync(file));
      if (validBytes < size) ftruncateSync(fd, validBytes);
    }
    let written = 0;
    while (written < frame.length) written += writeSync(fd, frame, written, frame.length - written);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  if (created && process.platform !== 'win32') fsyncDir(dirname(file));
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } catch {
    // Some file systems refuse to fsync a folder; the record itself is durable.
  } finally {
    closeSync(fd);
  }
}
