/**
 * Which frames may call main. The renderer is either the built index.html
 * (file://) or, in development, the Vite dev server; nothing else is trusted.
 */

/** Builds the predicate the dispatcher uses to accept or refuse a sender frame URL. */
export function createSenderPolicy(rendererUrl: string): (senderUrl: string) => boolean {
  const expected = new URL(rendererUrl);
  if (expected.protocol === 'file:') {
    // file: URLs have an opaque origin, so compare the exact document instead.
    return (senderUrl) => {
      const actual = parse(senderUrl);
      return actual !== null && actual.protocol === 'file:' && actual.host === expected.host && actual.pathname === expected.pathname;
    };
  }
  return (senderUrl) => {
    const actual = parse(senderUrl);
    return actual !== null && actual.origin !== 'null' && actual.origin === expected.origin;
  };
}

function parse(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}
