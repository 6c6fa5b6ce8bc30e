import { describe, expect, it } from 'vitest';
import { findFirefox } from '../scripts/find-firefox.ts';

describe('findFirefox', () => {
  it('takes FIREFOX_PATH when it names an executable', () => {
    // Any executable will do for the lookup: the Node running this test.
    expect(findFirefox({ FIREFOX_PATH: process.execPath })).toBe(process.execPath);
  });

  it('says how to install Firefox when FIREFOX_PATH names nothing', () => {
    expect(() => findFirefox({ FIREFOX_PATH: '/nonexistent/firefox' })).toThrow(
      /No Firefox found \(looked at \/nonexistent\/firefox\).*apt-get install -y firefox-esr.*FIREFOX_PATH/,
    );
  });
});
