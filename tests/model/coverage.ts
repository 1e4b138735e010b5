/**
 * Coverage of the machine's own definition by a set of paths: which state nodes were entered and
 * which transition definitions were taken. Works from the plain JSON paths too, so the browser
 * level can report what it really ran.
 */
import { getStateNodes } from '@xstate/graph';
import type { AnyStateNode, AnyTransitionDefinition } from 'xstate';
import type { AuthEvent } from '../../machines/auth-machine';
import { allPlainPaths, machineFor, type PlainPath, type ScenarioName } from './model';

export interface Coverage {
  states: { reached: number; total: number };
  transitions: { reached: number; total: number };
  missedStates: string[];
  missedTransitions: string[];
}

const describeTransition = (t: AnyTransitionDefinition) =>
  `${t.source.id} --${t.eventType || '(always)'}${t.guard ? ` [${String(typeof t.guard === 'string' ? t.guard : 'guard')}]` : ''}--> ${
    t.target?.map((node) => node.id).join(',') ?? '(self)'
  }`;

export function coverageOfPaths(paths: PlainPath[]): Coverage {
  const machine = machineFor('empty');
  const nodes = getStateNodes(machine.root);
  const all = nodes.flatMap((node) => [
    ...[...node.transitions.values()].flat(),
    ...(node.always ?? []),
  ]);
  const taken = new Set<AnyTransitionDefinition>();
  const entered = new Set<AnyStateNode>();

  for (const path of paths) {
    const [first, ...rest] = path.steps;
    if (!first) continue;
    // The eventless start: the `always` branch whose target is the state the path starts in.
    const initial = machine.resolveState({ value: first.state, context: first.context });
    for (const node of nodes)
      for (const t of node.always ?? [])
        if (t.target?.some((target) => initial._nodes.includes(target))) taken.add(t);
    initial._nodes.forEach((node) => entered.add(node));

    let previous = initial;
    for (const step of rest) {
      for (const t of machine.getTransitionData(previous, step.event as AuthEvent) ?? [])
        taken.add(t);
      previous = machine.resolveState({ value: step.state, context: step.context });
      previous._nodes.forEach((node) => entered.add(node));
    }
  }
  for (const t of taken) entered.add(t.source);
  entered.delete(machine.root);

  return {
    states: { reached: entered.size, total: nodes.length },
    transitions: { reached: all.filter((t) => taken.has(t)).length, total: all.length },
    missedStates: nodes.filter((node) => !entered.has(node)).map((node) => node.id),
    missedTransitions: all.filter((t) => !taken.has(t)).map(describeTransition),
  };
}

export function coverageOf(scenarios: ScenarioName[]): Coverage {
  return coverageOfPaths(allPlainPaths().filter((path) => scenarios.includes(path.scenario)));
}
