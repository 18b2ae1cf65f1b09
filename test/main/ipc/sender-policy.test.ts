import { describe, expect, it } from 'vitest';
import { createSenderPolicy } from '../../../main/ipc';

describe('createSenderPolicy', () => {
  it('accepts only the app://swath renderer origin for the built renderer', () => {
    const allowed = createSenderPolicy('app://swath/index.html');
    expect(allowed('app://swath/index.html')).toBe(true);
    // Hash routing and query strings do not change the document.
    expect(allowed('app://swath/index.html#/billing')).toBe(true);
    expect(allowed('app://evil/index.html')).toBe(false);
    expect(allowed('app://swath.evil/index.html')).toBe(false);
    expect(allowed('app://user@swath/index.html')).toBe(false);
    expect(allowed('file:///opt/Swath/resources/app.asar/out/renderer/index.html')).toBe(false);
    expect(allowed('swath-raster://swath/index.html')).toBe(false);
    expect(allowed('https://swath/index.html')).toBe(false);
    expect(allowed('about:blank')).toBe(false);
    expect(allowed('not a url')).toBe(false);
  });

  it('never trusts a file:// renderer', () => {
    expect(() => createSenderPolicy('file:///opt/Swath/resources/app.asar/out/renderer/index.html')).toThrow(/app:\/\/swath/);
  });

  it('accepts only the dev server origin for an http renderer', () => {
    const allowed = createSenderPolicy('http://localhost:5173');
    expect(allowed('http://localhost:5173/')).toBe(true);
    expect(allowed('http://localhost:5173/index.html?x=1')).toBe(true);
    expect(allowed('http://localhost:5174/')).toBe(false);
    expect(allowed('https://localhost:5173/')).toBe(false);
    expect(allowed('http://127.0.0.1:5173/')).toBe(false);
    expect(allowed('http://localhost:5173.evil.com/')).toBe(false);
    expect(allowed('file:///index.html')).toBe(false);
    expect(allowed('data:text/html,hi')).toBe(false);
  });
});
