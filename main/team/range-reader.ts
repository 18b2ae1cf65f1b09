/**
 * Reads the team's rasters from the read URL the admin policy names (`teamReadUrl`: any static web
 * server that serves the shared store's folder with Range requests), for an analyst whose machine
 * does not mount the share. Main makes every request; the renderer reads through the raster
 * protocol as it does for local files.
 *
 * The network is hostile, so every answer is checked before a byte of it is used:
 * - https only (plain http only on a loopback host, see {@link SharedStore.readUrl}); the server's
 *   certificate is checked against the system's CAs plus, when the policy names one, the team's own
 *   CA (`teamCatalogCa`: an organisation that runs its own CA for the catalog usually serves the
 *   share with it too);
 * - no credentials of any kind: no Authorization or Cookie header is ever sent (the API key and the
 *   catalog password never leave main for this server), only `Range` and `Accept-Encoding: identity`;
 * - a redirect is followed only within the same origin (at most {@link MAX_REDIRECTS}); one to
 *   another origin is refused;
 * - the answer must be 206 with exactly the Content-Range asked for (`bytes a-b/size`, the size the
 *   catalog row names), no content coding, a Content-Length (when sent) of exactly b-a+1, and a body
 *   of exactly that many bytes: a 200 with the whole file, another range or size, or more bytes than
 *   asked are refused (the request is destroyed at the first byte too many);
 * - a connection that does not answer within {@link ReadUrlOptions.timeoutMs}, or goes quiet that
 *   long mid-body, fails; the caller's AbortSignal cancels the request at any moment.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm, statfs } from 'node:fs/promises';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { rootCertificates } from 'node:tls';
import { abortError, throwIfAborted } from '../../common/abort.js';
import { AppError } from '../../common/errors.js';
import { readUrlOf } from './share.js';
import { replaceWithPart } from '../shared/files.js';

/** Free space a copy over the read URL leaves on the disk it writes to. */
export const DISK_RESERVE_BYTES = 256 * 1024 * 1024;

/** Same-origin redirects followed before giving up. */
export const MAX_REDIRECTS = 3;
/** Default time for a server to answer, or to send the next bytes of a body. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** Options of {@link RangeReader}. */
export interface ReadUrlOptions {
  /** The team's CA (PEM), trusted in addition to the system's; null: the system's only. */
  caPem?: string | null;
  /** How long the server may take to answer, or stay quiet mid-body (ms). */
  timeoutMs?: number;
}

/** A refused or failed read: an io AppError naming the URL and the reason. */
export class ReadUrlError extends AppError<'io'> {
  constructor(url: string, reason: string, options: { cause?: unknown } = {}) {
    super('io', `The team's read URL ${url} could not be used: ${reason}.`, options);
    this.name = 'ReadUrlError';
  }
}

/** The URL as shown in messages: origin and path, nothing else (it never holds a secret, but stays short). */
function shown(url: URL): string {
  const s = `${url.origin}${url.pathname}`;
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/** Reads byte ranges of files behind the team's read URL (see the module comment). */
export class RangeReader {
  private readonly ca: string[] | undefined;
  private readonly timeoutMs: number;

  constructor(options: ReadUrlOptions = {}) {
    this.ca = options.caPem ? [...rootCertificates, options.caPem] : undefined;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /**
   * Bytes [start, end] (inclusive) of the file at `url`, whose whole size is `size`, as a stream
   * that resolves once the server's answer has passed every check; the stream errors if the body
   * is cut short or runs longer than asked. Consume or destroy it.
   */
  async open(url: string, start: number, end: number, size: number, signal: AbortSignal): Promise<Readable> {
    throwIfAborted(signal);
    if (!Number.isSafeInteger(size) || size <= 0) throw new AppError('validation', `The size of ${url} must be a positive whole number of bytes.`);
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || end >= size) {
      throw new AppError('validation', `The range ${start}-${end} is not inside the ${size} bytes of ${url}.`);
    }
    let target = new URL(url);
    const origin = target.origin;
    for (let hop = 0; ; hop++) {
      const res = await this.request(target, start, end, signal);
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location !== undefined) {
        res.resume();
        let next: URL;
        try {
          next = new URL(res.headers.location, target);
        } catch {
          throw new ReadUrlError(shown(target), `it redirected to an address that is not a URL`);
        }
        if (next.origin !== origin) throw new ReadUrlError(shown(target), `it redirected to another origin (${next.origin}); nothing was sent there`);
        if (hop >= MAX_REDIRECTS) throw new ReadUrlError(shown(target), `more than ${MAX_REDIRECTS} redirects`);
        target = next;
        continue;
      }
      try {
        return this.checked(res, target, start, end, size, signal);
      } catch (e) {
        res.destroy();
        throw e;
      }
    }
  }

  /** Downloads the whole file at `url` (`size` bytes, sha256 `sha256`) to `file`: streamed to `<file>.part` (fsynced as it closes), hashed, given its name once it matches (the files module's `replaceWithPart`). */
  async download(url: string, size: number, sha256: string, file: string, signal: AbortSignal): Promise<void> {
    // The size is the catalog row's (a hostile row may claim any): never start a copy the disk cannot hold.
    const disk = await statfs(path.dirname(file));
    const free = disk.bavail * disk.bsize;
    if (!(size > 0) || size > free - DISK_RESERVE_BYTES) {
      throw new AppError('io', `The team's copy is ${size} bytes by the team catalog, but ${path.dirname(file)} has ${free} bytes free (${DISK_RESERVE_BYTES} kept in reserve): it was not copied.`);
    }
    const part = `${file}.part`;
    const hash = createHash('sha256');
    try {
      const body = await this.open(url, 0, size - 1, size, signal);
      await pipeline(
        body,
        new Transform({
          transform(chunk: Buffer, _enc, cb) {
            hash.update(chunk);
            cb(null, chunk);
          },
        }),
        createWriteStream(part, { flags: 'wx', flush: true }),
        { signal },
      );
      const digest = hash.digest('hex');
      if (digest !== sha256) throw new ReadUrlError(shown(new URL(url)), `the file it served has sha256 ${digest}, not the ${sha256} the team catalog registered; it was not used`);
      await replaceWithPart(part, file);
    } catch (e) {
      await rm(part, { force: true }).catch(() => undefined);
      if (signal.aborted) throw abortError(signal);
      throw e;
    }
  }

  /** One GET with a Range header and nothing else that identifies the analyst; resolves at the answer's headers. */
  private request(url: URL, start: number, end: number, signal: AbortSignal): Promise<IncomingMessage> {
    const loopback = url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
      return Promise.reject(new ReadUrlError(shown(url), 'it must use https'));
    }
    if (url.username || url.password) return Promise.reject(new ReadUrlError(shown(url), 'it must not carry a user name or password'));
    return new Promise<IncomingMessage>((resolve, reject) => {
      const headers = { Range: `bytes=${start}-${end}`, 'Accept-Encoding': 'identity' };
      const options = { method: 'GET', headers, signal, timeout: this.timeoutMs, agent: false as const };
      const req = url.protocol === 'https:'
        ? https.request(url, { ...options, ca: this.ca, rejectUnauthorized: true })
        : http.request(url, options);
      req.on('timeout', () => req.destroy(new ReadUrlError(shown(url), `no answer within ${Math.round(this.timeoutMs / 1000)} s`)));
      req.on('error', (e) => {
        if (signal.aborted) return reject(abortError(signal));
        reject(e instanceof ReadUrlError ? e : new ReadUrlError(shown(url), (e as Error).message, { cause: e }));
      });
      req.on('response', resolve);
      req.end();
    });
  }

  /** The body of an answer that passed the checks, limited to the bytes asked for. */
  private checked(res: IncomingMessage, url: URL, start: number, end: number, size: number, signal: AbortSignal): Readable {
    const where = shown(url);
    const status = res.statusCode ?? 0;
    const want = end - start + 1;
    if (status === 200) throw new ReadUrlError(where, 'the server ignored the Range request and answered with the whole file (HTTP 200); it must serve byte ranges (HTTP 206)');
    if (status !== 206) throw new ReadUrlError(where, `the server answered HTTP ${status}${status === 404 ? ' (no such file)' : ''}`);
    const range = res.headers['content-range'];
    const expected = `bytes ${start}-${end}/${size}`;
    if (range !== expected) {
      throw new ReadUrlError(where, `the server answered the range ${JSON.stringify((range ?? '(none)').slice(0, 100))}, not the ${JSON.stringify(expected)} asked for (the file on the server differs from the team catalog's, or the server is wrong)`);
    }
    const coding = res.headers['content-encoding'];
    if (coding && coding !== 'identity') throw new ReadUrlError(where, `the server sent the bytes with the content coding ${JSON.stringify(coding.slice(0, 40))}`);
    const length = res.headers['content-length'];
    if (length !== undefined && length !== String(want)) throw new ReadUrlError(where, `the server announced ${length.slice(0, 20)} bytes for a range of ${want}`);
    let got = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        got += chunk.length;
        if (got > want) return cb(new ReadUrlError(where, `the server sent more than the ${want} bytes asked for`));
        cb(null, chunk);
      },
      flush(cb) {
        cb(got === want ? null : new ReadUrlError(where, `the server sent ${got} of the ${want} bytes asked for`));
      },
    });
    // The first reason the body fails is the one the reader sees; the connection goes with it.
    const fail = (e: Error): void => {
      if (!limit.destroyed) limit.destroy(e);
      res.destroy();
    };
    const onAbort = (): void => fail(abortError(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    // The socket stays quiet too long mid-body: the body fails rather than hanging the map.
    res.setTimeout(this.timeoutMs, () => fail(new ReadUrlError(where, `the server stopped sending for ${Math.round(this.timeoutMs / 1000)} s`)));
    res.on('error', (e) => fail(e instanceof ReadUrlError ? e : new ReadUrlError(where, (e as Error).message, { cause: e })));
    // A cut connection ends the body without 'end': the limit fails instead of ending short.
    res.on('aborted', () => fail(new ReadUrlError(where, 'the connection was cut mid-body')));
    limit.on('error', () => res.destroy());
    limit.on('close', () => {
      signal.removeEventListener('abort', onAbort);
      if (!res.complete) res.destroy();
    });
    return res.pipe(limit);
  }
}

/** The team's rasters behind the policy's read URL, named by their storage path (the service's port). */
export class TeamReadUrl {
  constructor(
    /** The policy's `teamReadUrl`. */
    readonly base: string,
    private readonly reader: RangeReader,
  ) {
    readUrlOf('x', base); // A base that is not https (or loopback http), or carries credentials, is refused now.
  }

  /** The URL of a stored raster (shown to the analyst). */
  urlOf(storagePath: string): string {
    return readUrlOf(storagePath, this.base);
  }

  open(storagePath: string, start: number, end: number, size: number, signal: AbortSignal): Promise<Readable> {
    return this.reader.open(this.urlOf(storagePath), start, end, size, signal);
  }

  download(storagePath: string, size: number, sha256: string, file: string, signal: AbortSignal): Promise<void> {
    return this.reader.download(this.urlOf(storagePath), size, sha256, file, signal);
  }
}
