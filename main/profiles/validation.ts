/** Longest profile name accepted; long enough for "Production (EU, read-only)" and the like. */
export const MAX_NAME_LENGTH = 80;

/** Longest API key accepted; Windows Credential Manager caps a secret at 2560 bytes, so stay well below. */
export const MAX_KEY_LENGTH = 1024;

/** Reasons a profile name is unacceptable; empty when it is fine. */
export function nameReasons(name: unknown): string[] {
  if (typeof name !== 'string' || name.trim() === '') return ['Name is required.'];
  const trimmed = name.trim();
  const reasons: string[] = [];
  if (trimmed.length > MAX_NAME_LENGTH) reasons.push(`Name must be at most ${MAX_NAME_LENGTH} characters.`);
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) reasons.push('Name must be a single line without control characters.');
  return reasons;
}

/** The outcome of checking a base URL: the normalised form, or why it was refused. */
export type BaseUrlCheck = { ok: true; url: string } | { ok: false; reasons: string[] };

/** Checks and normalises a service base URL: absolute http(s), no credentials, query or fragment, no trailing slash. */
export function checkBaseUrl(input: unknown): BaseUrlCheck {
  if (typeof input !== 'string' || input.trim() === '') return { ok: false, reasons: ['Base URL is required.'] };
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    return { ok: false, reasons: ['Base URL must be an absolute URL, such as https://imagery.example.com.'] };
  }
  const reasons: string[] = [];
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    reasons.push(`Base URL must start with http:// or https:// (it starts with ${url.protocol}).`);
  }
  if (url.username || url.password) {
    reasons.push('Base URL must not contain a user name or password; the API key is kept separately, in the OS keychain.');
  }
  // `new URL('https://host?')` drops the empty query, so look at the input too.
  if (url.search || url.hash || /[?#]/.test(input)) {
    reasons.push('Base URL must not contain a query string (?...) or a fragment (#...).');
  }
  if (!url.hostname) reasons.push('Base URL must name a host.');
  // The key travels in a header on every call: plain http is only acceptable when it never leaves the machine.
  if (url.protocol === 'http:' && url.hostname && !isLoopbackHost(url.hostname)) {
    reasons.push(`Base URL must use https:// for ${url.hostname}: over plain http the API key would cross the network unencrypted (http is allowed only for localhost / 127.0.0.1).`);
  }
  if (reasons.length > 0) return { ok: false, reasons };
  // Callers append "/api/...", so one canonical form without the trailing slash avoids "//api".
  return { ok: true, url: url.href.replace(/\/+$/, '') };
}

/** Whether a URL's host name is this machine (localhost, 127.0.0.0/8, ::1, with or without brackets). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** Reasons an API key is unacceptable; empty when it is fine. Never echoes the key. */
export function keyReasons(key: unknown): string[] {
  if (typeof key !== 'string' || key === '') return ['API key is required.'];
  if (key.trim() === '') return ['API key must not be blank (it contains only whitespace).'];
  const reasons: string[] = [];
  if (/[\r\n]/.test(key)) {
    reasons.push('API key must be a single line: it contains a line break (check what was pasted).');
  } else if (/[\u0000-\u001f\u007f]/.test(key)) { // eslint-disable-line no-control-regex
    reasons.push('API key must not contain control characters such as tabs.');
  }
  if (key !== key.trim()) reasons.push('API key must not start or end with a space.');
  // The key travels in the x-api-key header, where fetch accepts only byte strings.
  if (/[^\x00-\x7f]/.test(key)) reasons.push('API key may contain only ASCII characters (it is sent in the x-api-key header).'); // eslint-disable-line no-control-regex
  if (key.length > MAX_KEY_LENGTH) reasons.push(`API key must be at most ${MAX_KEY_LENGTH} characters.`);
  return reasons;
}
