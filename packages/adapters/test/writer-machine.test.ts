import { describe, expect, it } from 'vitest';
import {
  DISK_FULL_RETRY_MS,
  initialState,
  nextBatch,
  transition,
  type MachineSettings,
  type WriterAction,
  type WriterEvent,
  type WriterState,
} from '../src/activity-log/writer-machine.js';

const settings: MachineSettings = { maxBatch: 500, retryMinMs: 100, retryMaxMs: 30_000 };

const writing = (batchLimit: number): WriterState => ({ name: 'writing', batchLimit });
const isolating = (among: number, batchLimit = 500): WriterState => ({ name: 'isolating', among, batchLimit });
type Resume = Extract<WriterState, { name: 'writing' | 'isolating' }>;
const retry = (
  name: 'batch-failing' | 'store-unreachable',
  resume: WriterState,
  failures: number,
  failuresWhileAnswering: number,
  attempt: number,
) => ({ name, resume: resume as Resume, failures, failuresWhileAnswering, attempt }) as WriterState;

const written = (entries: number, heldBack = false): WriterEvent => ({ kind: 'written', entries, heldBack });
const refused = (entries: number): WriterEvent => ({ kind: 'refused', entries });
const failed = (entries: number, how: Partial<Extract<WriterEvent, { kind: 'failed' }>> = {}): WriterEvent => ({
  kind: 'failed',
  entries,
  answers: true,
  diskFull: false,
  heldBack: false,
  othersWrittenSince: false,
  othersWaiting: true,
  ...how,
});

const next: WriterAction = { kind: 'next' };
const wait = (ms: number): WriterAction => ({ kind: 'wait', ms });

// Every row of the machine: state, event → next state, action.
const table: Array<[string, WriterState, WriterEvent, WriterState, WriterAction]> = [
  ['a clean full batch keeps the full size', writing(500), written(500), writing(500), next],
  ['a clean full batch doubles a small limit', writing(4), written(4), writing(8), next],
  ['a clean partial batch leaves the limit where it is', writing(64), written(3), writing(64), next],
  ['a held-back entry written changes nothing', writing(8), written(1, true), writing(8), next],
  ['a refused batch of several: isolating within it', writing(500), refused(500), isolating(500), next],
  [
    'a refused entry alone: set aside, batches of one while refusals go on',
    writing(500),
    refused(1),
    writing(1),
    { kind: 'set-aside', as: 'refused' },
  ],
  ['isolating: a clean half: the trouble is in the other half', isolating(500), written(250), isolating(250), next],
  ['isolating: the last entries clean, writing resumes at its limit', isolating(1, 32), written(1), writing(32), next],
  ['isolating: a refused half narrows the search', isolating(250), refused(125), isolating(125), next],
  ['isolating: the refused entry found alone', isolating(2), refused(1), writing(1), { kind: 'set-aside', as: 'refused' }],
  [
    'a failure while the store answers: tried again at once',
    writing(500),
    failed(500),
    retry('batch-failing', writing(500), 1, 1, 0),
    next,
  ],
  [
    'isolating: a failure while the store answers keeps its entries',
    isolating(4),
    failed(2),
    retry('batch-failing', isolating(4), 1, 1, 0),
    next,
  ],
  [
    'a second failure of several entries: split',
    retry('batch-failing', writing(500), 1, 1, 0),
    failed(500),
    retry('batch-failing', isolating(500), 0, 0, 0),
    next,
  ],
  [
    'a second failure of several, the store down: split, and a wait',
    retry('store-unreachable', writing(500), 1, 0, 2),
    failed(500, { answers: false }),
    retry('store-unreachable', isolating(500), 0, 0, 3),
    wait(400),
  ],
  [
    'a failure, the store not answering: a backoff',
    writing(500),
    failed(1, { answers: false }),
    retry('store-unreachable', writing(500), 1, 0, 1),
    wait(100),
  ],
  [
    'backoff doubles',
    retry('store-unreachable', writing(1), 1, 0, 3),
    failed(1, { answers: false }),
    retry('store-unreachable', writing(1), 2, 0, 4),
    wait(800),
  ],
  [
    'backoff stops at its maximum',
    retry('store-unreachable', writing(1), 1, 0, 20),
    failed(1, { answers: false }),
    retry('store-unreachable', writing(1), 2, 0, 21),
    wait(30_000),
  ],
  [
    'a full disk: at most 1 s apart, whatever answers',
    retry('store-unreachable', writing(1), 1, 0, 20),
    failed(1, { answers: true, diskFull: true }),
    retry('store-unreachable', writing(1), 2, 0, 21),
    wait(DISK_FULL_RETRY_MS),
  ],
  [
    'one entry failing once more while the store answers: held back',
    retry('batch-failing', writing(1), 1, 1, 0),
    failed(1),
    writing(1),
    { kind: 'hold-back' },
  ],
  [
    'an entry held back while isolating: one fewer to search',
    retry('batch-failing', isolating(3), 1, 1, 0),
    failed(1),
    isolating(2),
    { kind: 'hold-back' },
  ],
  [
    'the last entry searched held back: writing resumes',
    retry('batch-failing', isolating(1, 16), 1, 1, 0),
    failed(1),
    writing(16),
    { kind: 'hold-back' },
  ],
  [
    'one entry failing while the store is down: never held back',
    retry('store-unreachable', writing(1), 5, 0, 5),
    failed(1, { answers: false }),
    retry('store-unreachable', writing(1), 6, 0, 6),
    wait(3_200),
  ],
  [
    'a held-back entry failing after others were written: set aside as unwritable',
    writing(8),
    failed(1, { heldBack: true, othersWrittenSince: true }),
    writing(8),
    { kind: 'set-aside', as: 'unwritable' },
  ],
  [
    'a held-back entry failing, others waiting: they go on at once',
    writing(8),
    failed(1, { heldBack: true }),
    retry('batch-failing', writing(8), 0, 0, 0),
    next,
  ],
  [
    'only held-back entries, none written since: a wait',
    writing(8),
    failed(1, { heldBack: true, othersWaiting: false }),
    retry('batch-failing', writing(8), 0, 0, 1),
    wait(100),
  ],
  [
    'a held-back entry failing, the store down: a wait',
    writing(8),
    failed(1, { heldBack: true, answers: false, othersWrittenSince: true }),
    retry('store-unreachable', writing(8), 0, 0, 1),
    wait(100),
  ],
  ['retrying: a success resumes, counted as a clean write', retry('store-unreachable', writing(4), 3, 0, 3), written(4), writing(8), next],
  ['retrying: a success within an isolation narrows it', retry('batch-failing', isolating(8), 1, 1, 0), written(4), isolating(4), next],
  ['retrying: a refusal isolates', retry('store-unreachable', writing(500), 1, 0, 1), refused(500), isolating(500), next],
  [
    'retrying: a refused entry alone is set aside',
    retry('batch-failing', writing(1), 1, 1, 0),
    refused(1),
    writing(1),
    { kind: 'set-aside', as: 'refused' },
  ],
  ['a stop from any state', retry('store-unreachable', writing(1), 1, 0, 1), { kind: 'stop' }, { name: 'stopped' }, { kind: 'halt' }],
  ['stopped stays stopped, whatever the write under way did', { name: 'stopped' }, written(5), { name: 'stopped' }, { kind: 'halt' }],
];

describe('the activity writer as a machine: every transition', () => {
  it.each(table)('%s', (_, state, event, expectedState, expectedAction) => {
    expect(transition(state, event, settings)).toEqual({ state: expectedState, action: expectedAction });
  });

  it('the table has a row for every state and every event', () => {
    const pairs = new Set(table.map(([, state, event]) => `${state.name}/${event.kind}`));
    for (const state of ['writing', 'isolating', 'batch-failing', 'store-unreachable'])
      for (const event of ['written', 'refused', 'failed']) expect(pairs).toContain(`${state}/${event}`);
    expect(pairs).toContain('stopped/written');
  });

  it('plans batches: full and lingering while writing, halves while isolating, the same batch while retrying, none once stopped', () => {
    expect(initialState(settings)).toEqual(writing(500));
    expect(nextBatch(writing(500))).toEqual({ entries: 500, linger: true });
    expect(nextBatch(isolating(5))).toEqual({ entries: 3, linger: false });
    expect(nextBatch(retry('store-unreachable', writing(64), 1, 0, 1))).toEqual({ entries: 64, linger: false });
    expect(nextBatch(retry('batch-failing', isolating(8), 1, 1, 0))).toEqual({ entries: 4, linger: false });
    expect(nextBatch({ name: 'stopped' })).toEqual({ entries: 0, linger: false });
  });
});
