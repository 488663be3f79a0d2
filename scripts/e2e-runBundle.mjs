// A run bundle (`star-lab-run-bundle/1`) written here in plain JS from the format's description rather than by
// src/store/runBundle.ts, so the page's reader is checked against an independent writer: a finished ARPO run with
// the shipped s-tiny weights as its checkpoint, a few metric points (evaluations at steps 0 and 2) and one stored
// training rollout at step 2. The e2e group `runs` imports it (e2e-runs.mjs).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** the numbers the page should show for the bundle's run */
export const EXPECTED = {
  startSuccess: '10.0%',
  startOod: '50.0%',
  finalSuccess: '25.0%',
  finalOod: '45.0%',
  rewards: { sum: 0.9375, macro: 0.5, success: 0, curriculum: 0.9375 },
};

const COMMONSENSE = [
  'is_reasonable_visiting_city',
  'is_valid_restaurants',
  'is_valid_attractions',
  'is_valid_accommodation',
  'is_valid_transportation',
  'is_valid_information_in_current_city',
  'is_valid_information_in_sandbox',
  'is_not_absent',
];
const HARD = ['valid_cost', 'valid_room_rule', 'valid_cuisine', 'valid_room_type', 'valid_transportation'];

const encoded = (bytes) => ({
  base64: Buffer.from(bytes).toString('base64'),
  bytes: bytes.length,
  sha256: createHash('sha256').update(bytes).digest('hex'),
});

/** the bundle's JSON text; `checkpointDir` holds model.json and weights.bin */
export function makeRunBundle(checkpointDir, id = 'e2e-run-1') {
  const model = JSON.parse(readFileSync(join(checkpointDir, 'model.json'), 'utf8'));
  const weights = readFileSync(join(checkpointDir, 'weights.bin'));
  const created = Date.UTC(2025, 5, 1, 9, 0, 0);
  const config = {
    stage: 'rl',
    scale: 's',
    reward: 'curriculum',
    algorithm: 'arpo',
    steps: 2,
    trainSize: 20,
    mix: [4, 3, 3],
    toolFailureRate: 0.1,
    seed: 6,
  };
  const metrics = [
    { runId: id, step: 0, t: 1_000, values: { 'eval/success': 0.1, 'eval/ood_accuracy': 0.5, 'eval/seconds': 1 } },
    { runId: id, step: 1, t: 20_000, values: { 'reward/mean': 0.4, success: 0, kl: 0.001 } },
    {
      runId: id,
      step: 2,
      t: 45_000,
      values: {
        'reward/mean': 0.6,
        success: 0.5,
        kl: 0.002,
        'eval/success': 0.25,
        'eval/ood_accuracy': 0.45,
        'eval/seconds': 1,
      },
    },
  ];
  const checks = [
    ...COMMONSENSE.map((key) => ({
      key,
      kind: 'commonsense',
      pass: key !== 'is_valid_restaurants',
      reason:
        key === 'is_valid_restaurants' ? "Day 2 lunch 'Cafe Uno' is in Dallas, but the day is spent in Austin" : 'ok',
    })),
    ...HARD.map((key) => ({
      key,
      kind: 'hard',
      pass: key === 'valid_cost' || key === 'valid_transportation' ? true : null,
      reason:
        key === 'valid_cost'
          ? 'total $1,240 within the $1,800 budget'
          : key === 'valid_transportation'
            ? 'ok'
            : 'the query sets no such constraint',
    })),
  ];
  const day = (days, current_city, transportation, breakfast, attraction, lunch, dinner, accommodation) => ({
    days,
    current_city,
    transportation,
    breakfast,
    attraction,
    lunch,
    dinner,
    accommodation,
  });
  const trajectory = {
    kind: 'travel',
    prompt: 'Plan a 3-day trip from Dallas to Austin for 1 person, March 4 to March 6, 2022, with a budget of $1,800.',
    level: 'easy',
    calls: [
      {
        call: 'SearchFlight(Dallas, Austin, 2022-03-04)',
        observation: 'SearchFlight is temporarily unavailable (503). Try again.',
        error: true,
        injected: true,
      },
      {
        call: 'SearchFlight(Dallas, Austin, 2022-03-04)',
        observation: 'F0123 Dallas→Austin 08:10-09:05 $120',
        error: false,
        injected: false,
      },
      { call: 'SearchRestaurant(Austin)', observation: 'Cafe Uno (Italian, $25) ...', error: false, injected: false },
    ],
    callErrors: [],
    finish: 'plan',
    tokens: 212,
    plan: [
      day(
        1,
        'from Dallas to Austin',
        'Flight Number: F0123, from Dallas to Austin',
        '-',
        'Zilker Park, Austin',
        'Taco Joint, Austin',
        'BBQ Hall, Austin',
        'River Inn, Austin',
      ),
      day(
        2,
        'Austin',
        '-',
        'Bean Bar, Austin',
        'Capitol, Austin',
        'Cafe Uno, Dallas',
        'Noodle Shop, Austin',
        'River Inn, Austin',
      ),
      day(
        3,
        'from Austin to Dallas',
        'Flight Number: F0456, from Austin to Dallas',
        'Bean Bar, Austin',
        '-',
        '-',
        '-',
        '-',
      ),
    ],
    planError: null,
    checks,
    success: false,
    rl: {
      algorithm: 'arpo',
      rewardStage: 'sum',
      group: 0,
      index: 0,
      reward: 0.9375,
      advantage: 0.71,
      promptTokens: 60,
      tree: [
        {
          parent: null,
          forkAt: 60,
          fill: false,
          tokens: 212,
          reward: 0.9375,
          advantage: 0.71,
          delivered: true,
          success: false,
        },
        {
          parent: 0,
          forkAt: 140,
          fill: false,
          tokens: 230,
          reward: 0.5,
          advantage: -0.1,
          delivered: true,
          success: false,
        },
        {
          parent: null,
          forkAt: 60,
          fill: true,
          tokens: 90,
          reward: 0,
          advantage: -0.61,
          delivered: false,
          success: false,
        },
      ],
    },
  };
  return JSON.stringify({
    format: 'star-lab-run-bundle/1',
    exportedAt: created + 60_000,
    run: {
      id,
      kind: 'rl',
      config,
      status: 'completed',
      createdAt: created,
      updatedAt: created + 45_000,
      backend: 'webgpu · e2e fixture',
      summary: {
        steps: 2,
        totalSteps: 2,
        last: { 'reward/mean': 0.6, 'eval/success': 0.25, 'eval/ood_accuracy': 0.45 },
      },
      startingPoint: { kind: 'shipped', scale: 's' },
    },
    metrics,
    episodes: [{ runId: id, step: 2, index: 0, createdAt: created + 44_000, trajectory, reward: 0.9375 }],
    checkpoint: {
      runId: id,
      step: 2,
      createdAt: created + 44_500,
      weights: encoded(weights),
      weightSpecs: model.weightsManifest.flatMap((g) => g.weights),
      optimizer: encoded(Buffer.alloc(0)),
      optimizerSpecs: [],
      rngState: [1, 2, 3, 4],
    },
  });
}
