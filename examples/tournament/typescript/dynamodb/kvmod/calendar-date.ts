// Copied by kvmod from its src/language/common/calendar-date.ts: the rules of the DynamoDB design have one source. Do not edit.
/**
 * The one rule for which dates exist, shared by the PIDM literal check, the instance-data checker and the
 * Redis encoder (so a date one accepts is never refused by another): ISO 8601 years 0001–9999 in the
 * proleptic Gregorian calendar. Written out rather than through `Date.UTC`, which maps years 0–99 to
 * 1900–1999 and so refused 0001–0099.
 */

/** Days in each month of a common year (February gains one in a leap year). */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31] as const;

/** True for a Gregorian leap year: divisible by 4, except centuries not divisible by 400. */
export function isLeapYear(year: number): boolean {
    return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** True when year (1–9999), month (1–12) and day name a day of the ISO calendar. */
export function isCalendarDate(year: number, month: number, day: number): boolean {
    if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return false;
    if (year < 1 || year > 9999 || month < 1 || month > 12 || day < 1) return false;
    return day <= (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/** True when `text` begins with a `YYYY-MM-DD` that is a calendar date (a datetime's date part counts). */
export function startsWithCalendarDate(text: string): boolean {
    const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
    return match !== null && isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]));
}
