/**
 * The write map (transformations/write-map): which collection fields copy each entity attribute and reference, and
 * how many rows an update of one instance rewrites, derived from the cardinalities along the include paths.
 */
import { describe, expect, test } from '@jest/globals';
import { transformPidmToKvlm } from '../../transformations/pidm-to-kvlm/index.js';
import { buildWriteMap, totalRows, type EntityWriteMap } from '../../transformations/write-map/index.js';
import { loadPidm } from './transformation-test-helpers.js';

const CLINIC = `
entity Clinic {
  id code
  city text
}
entity Patient {
  id pid
  fullName text
  phone text
  ref Clinic[1] clinic
}
entity Appointment {
  id number
  at datetime
  status text
  ref Patient[1] patient
  ref Drug[*] drugs
  ref Room[0..1] room
}
entity Drug {
  id name
  dosage text
}
entity Room {
  id label
}
query Q1_appointmentsOfPatient:
SELECT at, status, P.fullName
FROM Appointment
INCLUDE Appointment.patient as P
WHERE P.pid = "?pid"
ORDER BY at
query Q2_drugsOfAppointment:
SELECT D.name, D.dosage, at
FROM Appointment
INCLUDE Appointment.drugs as D
WHERE number = "?n"
query Q3_appointmentsByCity:
SELECT at, P.fullName
FROM Appointment
INCLUDE Appointment.patient as P, P.clinic as C, Appointment.room as R
WHERE C.city = "?city"
`;

async function writeMap(merge: 'none' | 'safe' = 'none'): Promise<EntityWriteMap[]> {
    const pidm = await loadPidm(CLINIC);
    return buildWriteMap(pidm, transformPidmToKvlm(pidm, { merge }).model);
}

function attribute(map: EntityWriteMap[], entity: string, name: string) {
    const found = map.find((e) => e.entity === entity)?.attributes.find((a) => a.name === name);
    if (!found) throw new Error(`no attribute ${entity}.${name}`);
    return found;
}

/** A copy as one line: `collection.field [roles] key? : rows`. */
const line = (copy: { collection: string; field: string; roles: string[]; keyPart: boolean; rows: { text: string } }) =>
    `${copy.collection}.${copy.field} [${copy.roles.join(',')}]${copy.keyPart ? ' key' : ''}: ${copy.rows.text}`;

describe('buildWriteMap', () => {
    test('an attribute copied through a [1] path: one row per referrer along the path, reversed', async () => {
        const map = await writeMap();
        expect(attribute(map, 'Patient', 'fullName').copies.map(line)).toEqual([
            'Q1_appointmentsOfPatient.P_fullName [projected]: 1 row per Appointment of the Patient (Appointment.patient reversed: [*])',
            'Q3_appointmentsByCity.P_fullName [projected]: 1 row per Appointment of the Patient (Appointment.patient reversed: [*]) × Room of the Appointment if any (Appointment.room: [0..1])',
        ]);
        // Two reversed steps: the clinic's patients, then their appointments.
        expect(attribute(map, 'Clinic', 'city').copies.map(line)).toEqual([
            'Q3_appointmentsByCity.C_city [filtered]: 1 row per Patient of the Clinic (Patient.clinic reversed: [*]) × Appointment of the Patient (Appointment.patient reversed: [*]) × Room of the Appointment if any (Appointment.room: [0..1])',
        ]);
        expect(attribute(map, 'Clinic', 'city').copies[0].rows.factors).toEqual([
            { kind: 'referrers', entity: 'Patient', reference: 'clinic', of: 'Clinic' },
            { kind: 'referrers', entity: 'Appointment', reference: 'patient', of: 'Patient' },
            { kind: 'include', entity: 'Room', reference: 'room', of: 'Appointment', cardinality: 'optional' },
        ]);
    });

    test('an attribute copied through a [*] path, and the FROM entity’s attribute multiplied by a [*] include', async () => {
        const map = await writeMap();
        expect(attribute(map, 'Drug', 'dosage').copies.map(line)).toEqual([
            'Q2_drugsOfAppointment.D_dosage [projected]: 1 row per Appointment of the Drug (Appointment.drugs reversed: [*])',
        ]);
        expect(attribute(map, 'Appointment', 'at').copies.map(line)).toEqual([
            'Q1_appointmentsOfPatient.at [projected,sorted]: 1 row',
            'Q2_drugsOfAppointment.at [projected]: 1 row per Drug of the Appointment (Appointment.drugs: [*])',
            'Q3_appointmentsByCity.at [projected]: 1 row per Room of the Appointment if any (Appointment.room: [0..1])',
        ]);
    });

    test('a key attribute: a part of the natural keys (the row moves), filtered where a query compares it', async () => {
        const map = await writeMap();
        const pid = attribute(map, 'Patient', 'pid');
        expect(pid.identifier).toBe(true);
        expect(pid.copies.map(line)).toEqual([
            'Q1_appointmentsOfPatient.P_pid [filtered]: 1 row per Appointment of the Patient (Appointment.patient reversed: [*])',
        ]);
        const number = attribute(map, 'Appointment', 'number');
        // The appointment's number keys every row of the three collections: a field of Q2, the key alone elsewhere.
        expect(number.copies.map((copy) => [copy.collection, copy.field, copy.roles, copy.keyPart])).toEqual([
            ['Q1_appointmentsOfPatient', 'Q1_appointmentsOfPatient_id', ['key'], true],
            ['Q2_drugsOfAppointment', 'number', ['filtered'], true],
            ['Q3_appointmentsByCity', 'Q3_appointmentsByCity_id', ['key'], true],
        ]);
        // The drug's name is both projected and a key part of Q2's rows (one row per appointment × drug).
        expect(attribute(map, 'Drug', 'name').copies.map(line)).toEqual([
            'Q2_drugsOfAppointment.D_name [projected] key: 1 row per Appointment of the Drug (Appointment.drugs reversed: [*])',
        ]);
    });

    test('a filtered attribute keeps its roles; an attribute no query reads is copied nowhere', async () => {
        const map = await writeMap();
        expect(attribute(map, 'Clinic', 'city').copies.map((c) => [c.roles, c.indexed])).toEqual([
            [['filtered'], false],
        ]);
        expect(attribute(map, 'Patient', 'phone').copies).toEqual([]);
        expect(attribute(map, 'Room', 'label').copies).toEqual([]);
        expect(map.map((e) => e.entity)).toEqual(['Clinic', 'Patient', 'Appointment', 'Drug', 'Room']);
    });

    test('references: the includes that walk them and the rows one (instance, target) pair binds', async () => {
        const map = await writeMap();
        const references = (entity: string) =>
            map
                .find((e) => e.entity === entity)!
                .references.map(
                    (r) =>
                        `${r.name} -> ${r.target}: ${r.copies.map((c) => `${c.collection} ${c.node} = ${c.rows.text}`).join('; ')}`,
                );
        expect(references('Appointment')).toEqual([
            'patient -> Patient: Q1_appointmentsOfPatient P = 1 row; Q3_appointmentsByCity P = 1 row per Room of the Appointment if any (Appointment.room: [0..1])',
            'drugs -> Drug: Q2_drugsOfAppointment D = 1 row',
            'room -> Room: Q3_appointmentsByCity R = 1 row',
        ]);
        expect(references('Patient')).toEqual([
            'clinic -> Clinic: Q3_appointmentsByCity C = 1 row per Appointment of the Patient (Appointment.patient reversed: [*]) × Room of the Appointment if any (Appointment.room: [0..1])',
        ]);
    });

    test('each copy’s rows as a count of instances, and an update’s rows as the sum over its copies', async () => {
        const map = await writeMap();
        const counts = (entity: string, name: string) => attribute(map, entity, name).copies.map((c) => c.rows.count);
        expect(counts('Patient', 'fullName')).toEqual([
            'Appointments per Patient',
            'Appointments per Patient × (0 or 1 Room per Appointment)',
        ]);
        expect(counts('Clinic', 'city')).toEqual([
            'Patients per Clinic × Appointments per Patient × (0 or 1 Room per Appointment)',
        ]);
        expect(counts('Appointment', 'at')).toEqual(['1', 'Drugs per Appointment', '(0 or 1 Room per Appointment)']);
        const total = (entity: string, name: string) =>
            totalRows(attribute(map, entity, name).copies.map((c) => c.rows));
        expect(total('Appointment', 'at')).toBe('1 + Drugs per Appointment + (0 or 1 Room per Appointment)');
        expect(total('Patient', 'phone')).toBe('0');
        // Equal counts are grouped, the ones added up first.
        const row = (count: string) => ({ factors: [], text: '', count });
        expect(totalRows([row('Tags per Book'), row('1'), row('Tags per Book'), row('1')])).toBe(
            '2 + 2 × Tags per Book',
        );
        // The plural of an entity name: Address → Addresses, Category → Categories, Day → Days.
        const pidm = await loadPidm(`
entity Address {
  id code
  ref Category[1] category
}
entity Category {
  id name
  ref Day[1] day
}
entity Day {
  id date
}
query Q1_addresses:
SELECT code, C.name, D.date
FROM Address
INCLUDE Address.category as C, C.day as D
`);
        const days = buildWriteMap(pidm, transformPidmToKvlm(pidm).model).find((e) => e.entity === 'Day')!;
        expect(days.attributes[0].copies.map((c) => c.rows.count)).toEqual([
            'Categories per Day × Addresses per Category',
        ]);
    });

    test('an entity without identifier lists the surrogate _id first', async () => {
        const pidm = await loadPidm(`
entity Note {
  body text
}
query Q1_notes:
SELECT body
FROM Note
`);
        const [note] = buildWriteMap(pidm, transformPidmToKvlm(pidm).model);
        expect(note.attributes.map((a) => [a.name, a.identifier, a.copies.map(line)])).toEqual([
            ['_id', true, ['Q1_notes.Q1_notes_id [key] key: 1 row']],
            ['body', false, ['Q1_notes.body [projected]: 1 row']],
        ]);
    });
});
