import { describe, expect, test } from '@jest/globals';
import { didYouMean, didYouMeanSentence, editDistance } from '../../../src/language/common/did-you-mean.js';

describe('edit distance', () => {
    test.each([
        ['', '', 0],
        ['abc', '', 3],
        ['frstname', 'firstname', 1],
        ['flihgts', 'flights', 1],
        ['kitten', 'sitting', 3],
        ['Fligth', 'Flight', 1],
    ])('between %j and %j is %i', (a, b, distance) => {
        expect(editDistance(a, b)).toBe(distance);
        expect(editDistance(b, a)).toBe(distance);
    });
});

describe('did-you-mean suggestions', () => {
    test('suggest the closest names only, ignoring case', () => {
        expect(didYouMean('frstname', ['lastname', 'firstname', 'birthdate'])).toEqual(['firstname']);
        expect(didYouMean('CITY', ['city', 'country'])).toEqual(['city']);
    });

    test("keep ties in the candidates' order, at most three", () => {
        expect(didYouMean('ab', ['ac', 'xb', 'ad', 'ae'])).toEqual(['ac', 'xb', 'ad']);
    });

    test('suggest nothing far away, and never a whole replacement of a short name', () => {
        expect(didYouMean('zzz', ['firstname'])).toEqual([]);
        expect(didYouMean('w', ['z', 'y'])).toEqual([]);
    });

    test('read as a sentence', () => {
        expect(didYouMeanSentence([])).toBe('');
        expect(didYouMeanSentence(['a'])).toBe(" Did you mean 'a'?");
        expect(didYouMeanSentence(['a', 'b', 'c'])).toBe(" Did you mean 'a', 'b' or 'c'?");
    });
});
