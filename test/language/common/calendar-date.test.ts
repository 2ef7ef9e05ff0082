import { describe, expect, test } from '@jest/globals';
import fc from 'fast-check';
import { isCalendarDate, isLeapYear, startsWithCalendarDate } from '../../../src/language/common/calendar-date.js';

describe('the calendar-date rule (ISO 8601 years 0001-9999, proleptic Gregorian)', () => {
    test.each([
        ['0001-01-01', true],
        ['0099-12-31', true],
        ['0004-02-29', true],
        ['0100-02-29', false],
        ['0400-02-29', true],
        ['2000-02-29', true],
        ['2023-02-29', false],
        ['9999-12-31', true],
        ['0000-01-01', false],
        ['2024-00-10', false],
        ['2024-13-10', false],
        ['2024-04-31', false],
        ['2024-04-00', false],
        ['2024-04-30T23:59:59', true],
        ['24-04-30', false],
    ])('%s is a calendar date: %s', (text, expected) => {
        expect(startsWithCalendarDate(text)).toBe(expected);
    });

    test('agrees with Date.UTC for every day of years 100-9999 (where Date.UTC does not remap the year)', () => {
        fc.assert(
            fc.property(
                fc.integer({ min: 100, max: 9999 }),
                fc.integer({ min: 1, max: 12 }),
                fc.integer({ min: 1, max: 31 }),
                (year, month, day) => {
                    const date = new Date(Date.UTC(year, month - 1, day));
                    const real =
                        date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
                    expect(isCalendarDate(year, month, day)).toBe(real);
                },
            ),
            { seed: 13, numRuns: 2000 },
        );
    });

    test('leap years: every 4th, not centuries, but every 400th', () => {
        expect([4, 100, 400, 1900, 2000, 2023, 2024].map(isLeapYear)).toEqual([
            true,
            false,
            true,
            false,
            true,
            false,
            true,
        ]);
    });
});
