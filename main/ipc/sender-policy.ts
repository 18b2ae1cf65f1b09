/**
 * Which frames may call main. The renderer is either the built renderer on
 * its own scheme (app://swath/) or, in development, the Vite dev server;
 * nothing else is trusted, file:// pages least of all.
 */

/** Builds the predicate the dispatcher uses to accept or refuse a sender frame URL. */
export function createSenderPolicy(rendererUrl: string): (senderUrl: string) => boolean {
  const expected = new URL(rendererUrl);
  if (expected.protocol === 'file:') throw new Error('The renderer is never trusted from file://; serve it from app://swath/.');
  if (expected.protocol !== 'http:' && expected.protocol !== 'https:') {
    // A custom scheme: the WHATWG parser gives it an opaque origin, so compare scheme and host.
    return (senderUrl) => {
      const actual = parse(senderUrl);
      return actual !== null && actual.protocol === expected.protocol && actual.host === expected.host && actual.host !== '' && !actual.username && !actual.password;
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
