/**
 * PIDM hover through Langium's testing utilities (`expectHover`), with the services the language server
 * composes: a `"?param"` string says its name, type and the attribute it is compared with; a query names
 * the KVLM collection and the Redis index that serve it (the index from the Redis design, with the
 * `kvmod.redis.*` settings).
 */
import { beforeAll, describe, test } from '@jest/globals';
import { expectHover } from 'langium/test';
import { createKvmodServices } from '../../../src/language/kvmod-module.js';
import { createQueryCollectionLookup } from '../../../src/extension/server-query-hover.js';

const services = createKvmodServices(undefined, undefined, {
    lsp: { QueryCollectionLookup: (pidm) => createQueryCollectionLookup(pidm.shared) },
});
const hover = expectHover(services.Pidm);

const MODEL = `
entity Rider {
  id riderId
  name text
  city text
}
entity Ride {
  id rideId
  fare float
  startedAt datetime
  ref Rider[1] rider
}
query <|>Q1_ridesOfRider:
SELECT rideId, R.name FROM Ride INCLUDE Ride.rider AS R WHERE R.riderId = "?ri<|>der" and fare >= "<|>?"
query Q2_ridesInCity:
SELECT rideId, fare FROM Ride AS X INCLUDE X.rider WHERE X.rider.city = "?city" and startedAt < "?before" and fare > <|>10
`;

beforeAll(async () => {
    // As the language server does once the client has sent its settings.
    await services.shared.workspace.ConfigurationProvider.initialized({});
});

describe('PIDM hover', () => {
    test('on "?param": its name, type and the attribute it is compared with', async () => {
        await hover({
            text: MODEL,
            index: 1,
            hover: 'parameter `?rider`: `text`, compared (`=`) with `R.riderId`: attribute `riderId: text` of **Rider**',
            disposeAfterCheck: true,
        });
    });

    test('on an anonymous "?": named after its attribute, as the transformation names it', async () => {
        await hover({
            text: MODEL,
            index: 2,
            hover: 'parameter `?` (named `fare` after its attribute): `float`, compared (`>=`) with `fare`: attribute `fare: float` of **Ride**',
            disposeAfterCheck: true,
        });
    });

    test('on a literal: nothing', async () => {
        await hover({ text: MODEL, index: 3, hover: undefined, disposeAfterCheck: true });
    });

    test('on a query: the collection and the Redis index serving it, with the kvmod.redis settings', async () => {
        await hover({
            text: MODEL,
            index: 0,
            hover: [
                'query **Q1_ridesOfRider**: 2 projection(s) from **Ride**',
                'served by KVLM collection **Q1_ridesOfRider** (4 field(s); merge policy safe)',
                'Redis: index `Q1_ridesOfRider`, keys `Q1_ridesOfRider_cb7ae0:…` (redisearch2)',
            ].join('\n\n'),
            disposeAfterCheck: true,
        });
        services.shared.workspace.ConfigurationProvider.updateConfiguration({
            settings: { kvmod: { redis: { dialect: 'redisearch1', dbPrefix: true } } },
        });
        await hover({
            text: MODEL,
            index: 0,
            hover: /\n\nRedis: index `\w+_Q1_ridesOfRider`, keys `\w+_Q1_ridesOfRider_[0-9a-f]{6}:…` \(redisearch1\)$/,
            disposeAfterCheck: true,
        });
    });
});
