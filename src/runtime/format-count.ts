/**
 * `12,345`: counts in messages, for every engine and the command line (not `toLocaleString`: its first call loads
 * ICU's locale data, ~0.1 s of a load's start-up).
 */
export function formatCount(n: number): string {
    return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
