import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

/** Read-only, and never blocking the open of a FIFO or device (check it is a regular file before reading). */
export const READ_NONBLOCK = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** Up to `maxBytes` of the regular file open as `handle`, from its start (`fromEnd`: its last bytes), and its size; undefined for any other kind of file. */
export async function readBounded(
  handle: FileHandle,
  maxBytes: number,
  { fromEnd = false }: { readonly fromEnd?: boolean } = {},
): Promise<{ readonly bytes: Buffer; readonly size: number } | undefined> {
  const stats = await handle.stat();
  if (!stats.isFile()) return undefined;
  const { size } = stats;
  const start = fromEnd ? Math.max(0, size - maxBytes) : 0;
  const buffer = Buffer.alloc(Math.min(size - start, maxBytes));
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, start + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return { bytes: buffer.subarray(0, filled), size };
}
