import { afterEach, describe, expect, it } from 'vitest';
import { isFoldedByDefault, readFoldChoices, writeFoldChoices } from '../site-folding.ts';

describe('site folding', () => {
  afterEach(() => sessionStorage.clear());

  it('folds long sites by default and keeps short ones open', () => {
    expect(isFoldedByDefault(60)).toBe(true);
    expect(isFoldedByDefault(3)).toBe(false);
  });

  it("remembers the operator's choices for the session and ignores what it cannot read", () => {
    expect(readFoldChoices()).toEqual({});
    writeFoldChoices({ 'PLANT-EU-100': false, 'PLANT-EU-001': true });
    expect(readFoldChoices()).toEqual({ 'PLANT-EU-100': false, 'PLANT-EU-001': true });
    sessionStorage.setItem('powerdeck.sites.folded', '{"PLANT-EU-100":"yes"}');
    expect(readFoldChoices()).toEqual({});
    sessionStorage.setItem('powerdeck.sites.folded', 'not json');
    expect(readFoldChoices()).toEqual({});
  });
});
