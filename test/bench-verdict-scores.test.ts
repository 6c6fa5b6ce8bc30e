/**
 * The sums behind the bench's `verify` figures (bench/lib/verdict-scores.ts): the precision and
 * recall of each seeded class's expected verdict, and how far a delivered curve lies from the
 * sandbox's truth in sampling periods, so the figures cannot pass by a wrong sum.
 */
import { describe, expect, it } from 'vitest';
import type { EventPowerPoint } from '#domain/fleet-power.ts';
import type { Verdict } from '#domain/verdict.ts';
import type { Behaviour } from '#sandbox/model/behaviours.ts';
import { classScores, curveAgainstTruth } from '../bench/lib/verdict-scores.ts';

const STEP_MS = 60_000;

describe('class scores', () => {
  it('counts a follower judged not following against both classes', () => {
    const behaviourOf = new Map<string, Behaviour>([
      ['A', 'follows'],
      ['B', 'follows'],
      ['C', 'ignoresCommands'],
      ['D', 'goesOffline'],
    ]);
    const verdictOf = new Map<string, Verdict>([
      ['A', 'delivered'],
      ['B', 'notFollowing'],
      ['C', 'notFollowing'],
      // D has no verdict: missed by its class.
    ]);
    const scores = new Map(classScores(behaviourOf, verdictOf).map((s) => [s.behaviour, s]));
    expect(scores.get('follows')).toMatchObject({ devices: 2, precision: 100, recall: 50 });
    expect(scores.get('ignoresCommands')).toMatchObject({
      devices: 1,
      precision: 50,
      recall: 100,
    });
    expect(scores.get('goesOffline')).toMatchObject({ devices: 1, precision: 0, recall: 0 });
    // A class with no device and no verdict of its kind is not held against the run.
    expect(scores.get('siteLimited')).toMatchObject({ devices: 0, precision: 100, recall: 100 });
  });
});

describe('curve against truth', () => {
  const curve = (delivered: number[]): EventPowerPoint[] =>
    delivered.map((deliveredW, i) => ({
      atMs: i * STEP_MS,
      commandedW: 30_000,
      deliveredW,
      measuredDevices: 10,
    }));
  const truth = curve([0, 1_000, 5_000, 9_000, 12_000, 12_000]);

  it('is 0 periods off when every point meets the truth', () => {
    expect(curveAgainstTruth(truth, truth, STEP_MS)).toEqual({ offsetPeriods: 0, maxErrorW: 0 });
  });

  it('is 1 period off for a curve one step late', () => {
    const late = curve([0, 0, 1_000, 5_000, 9_000, 12_000]);
    expect(curveAgainstTruth(late, truth, STEP_MS)).toEqual({
      offsetPeriods: 1,
      maxErrorW: 4_000,
    });
  });

  it('is 4 when a point is nowhere near or a step is missing', () => {
    expect(
      curveAgainstTruth(curve([0, 1_000, 50_000, 9_000, 12_000, 12_000]), truth, STEP_MS),
    ).toMatchObject({ offsetPeriods: 4 });
    expect(curveAgainstTruth(truth.slice(0, 4), truth, STEP_MS)).toMatchObject({
      offsetPeriods: 4,
    });
  });
});
