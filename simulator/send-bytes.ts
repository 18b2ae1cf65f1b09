/**
 * A download's body sent from a {@link ByteReader}: reads of {@link READ_BYTES} into two buffers
 * used in turn, one read while the other is being written, and a buffer read into again only once
 * the socket has taken its last write. A download allocates those two buffers whatever its size
 * (a buffer per read would leave the file's size in garbage for the collector).
 */
import type { ServerResponse } from 'node:http';
import type { ByteReader } from '../main/shared/file-io.js';

/** Reads of 4 MiB: a 38 MB composite goes out over loopback in about 40-46 ms, in 49-68 ms in reads of 1 MiB. */
export const READ_BYTES = 4 << 20;

/** Writes the first `limit` bytes of `reader` to `res` (not ended); false when the client went away first. */
export async function sendBytes(res: ServerResponse, reader: ByteReader, limit: number): Promise<boolean> {
  const size = Math.max(1, Math.min(READ_BYTES, limit));
  const buffers = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
  // Each buffer's last write: true once the socket has taken it, false if the connection closed first.
  const writes: (Promise<boolean> | null)[] = [null, null];
  for (let at = 0, k = 0; at < limit; k ^= 1) {
    if (writes[k] && !(await writes[k])) return false;
    const piece = buffers[k]!.subarray(0, Math.min(size, limit - at));
    await reader.read(piece, at);
    if (res.destroyed) return false;
    writes[k] = taken(res, piece);
    at += piece.length;
  }
  for (const w of writes) if (w && !(await w)) return false;
  return true;
}

/** Writes `piece` to `res`: resolves true once the socket has taken it, false if the connection closes first. */
function taken(res: ServerResponse, piece: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const onClose = (): void => resolve(false);
    res.once('close', onClose);
    res.write(piece, (error) => {
      res.off('close', onClose);
      resolve(!error);
    });
  });
}
