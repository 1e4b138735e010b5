import { getStateNodes } from '@xstate/graph';
import { describe, expect, it } from 'vitest';
import { coverageOf } from '../model/coverage';
import { SCENARIOS, machineFor, type ScenarioName } from '../model/model';

describe('coverage of the auth machine by the generated paths', () => {
  const scenarios = Object.keys(SCENARIOS) as ScenarioName[];
  const coverage = coverageOf(scenarios);

  it('reaches every state of the machine', () => {
    expect(coverage.missedStates).toEqual([]);
    expect(coverage.states.reached).toBe(coverage.states.total);
  });

  it('takes every transition of the machine, the eventless and the delayed ones included', () => {
    expect(coverage.missedTransitions).toEqual([]);
    expect(coverage.transitions.reached).toBe(coverage.transitions.total);
    console.info(
      `machine coverage: ${coverage.states.reached}/${coverage.states.total} states, ` +
        `${coverage.transitions.reached}/${coverage.transitions.total} transitions`,
    );
  });

  it('counts the definition the way it is written, so that a new transition is noticed', () => {
    const machine = machineFor('empty');
    const definitions = getStateNodes(machine.root).flatMap((node) => [
      ...[...node.transitions.values()].flat(),
      ...(node.always ?? []),
    ]);
    expect(coverage.transitions.total).toBe(definitions.length);
    expect(coverage.states.total).toBe(getStateNodes(machine.root).length);
  });
});
