import type { PlanState, PlanStep, PlanStepState, PlanStepStatus } from "../../goal/plan";

/** Statuses a dependent may build on: a skipped step's dependents go on without it. */
const SETTLED: ReadonlySet<PlanStepStatus> = new Set(["done", "skipped"]);

/** The first pending step whose dependencies are all done (or skipped), in plan order. */
export function readyStep(state: Pick<PlanState, "steps">): PlanStepState | undefined {
  return readySteps(state)[0];
}

/** Every pending step whose dependencies are all done (or skipped), in plan order: they may run at once. */
export function readySteps(state: Pick<PlanState, "steps">): PlanStepState[] {
  const status = new Map(state.steps.map((step) => [step.id, step.status]));
  return state.steps.filter(
    (step) =>
      step.status === "pending" &&
      step.dependsOn.every((dep) => {
        const depStatus = status.get(dep);
        return depStatus !== undefined && SETTLED.has(depStatus);
      }),
  );
}

/** `stepId` and every step that depends on it, directly or not, in plan order. */
export function withDependents(steps: readonly PlanStep[], stepId: string): string[] {
  const affected = new Set([stepId]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const step of steps) {
      if (!affected.has(step.id) && step.dependsOn.some((dep) => affected.has(dep))) {
        affected.add(step.id);
        grew = true;
      }
    }
  }
  return steps.filter((step) => affected.has(step.id)).map((step) => step.id);
}

/** Replaces one step by id (the plan's order is kept). */
export function updateStep(
  state: PlanState,
  stepId: string,
  update: (step: PlanStepState) => PlanStepState,
): PlanState {
  return { ...state, steps: state.steps.map((step) => (step.id === stepId ? update(step) : step)) };
}

/** The state before the first plan: request 1 armed, nothing planned yet. */
export function initialPlanState(revision: number): PlanState {
  return {
    version: 0,
    revisionSeen: revision,
    steps: [],
    needsApproval: false,
    requests: 1,
    served: 0,
    history: [],
  };
}

/** A fresh step from the planner's answer. */
export function newStepState(step: PlanStep): PlanStepState {
  return { ...step, status: "pending", attempts: 0 };
}
