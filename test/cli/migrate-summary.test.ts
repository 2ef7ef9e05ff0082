/** The line `kvmod migrate` ends with: the count of steps, in words a reader expects. */
import { describe, expect, test } from '@jest/globals';
import { migrationSummary } from '../../src/cli/migrate-actions.js';

describe('migrationSummary', () => {
    test('one step is singular, others plural, none says there was nothing to do', () => {
        const server = 'redis://127.0.0.1:6379';
        expect(migrationSummary(server, 'new.pidm', 'RediSearch 1.2.0', 1)).toBe(
            'migrated redis://127.0.0.1:6379 to new.pidm (RediSearch 1.2.0): 1 step',
        );
        expect(migrationSummary(server, 'new.pidm', 'RediSearch 1.2.0', 4)).toBe(
            'migrated redis://127.0.0.1:6379 to new.pidm (RediSearch 1.2.0): 4 steps',
        );
        expect(migrationSummary(server, 'new.pidm', 'RediSearch 1.2.0', 0)).toBe(
            'nothing to do: redis://127.0.0.1:6379 already serves new.pidm (RediSearch 1.2.0)',
        );
    });
});
