import { MAX_PLAN_STEPS, type PlanStep, PlanStepSchema } from "../../goal/plan";
import { SPAWN_SUBGOAL_TOOL } from "../../goal/subgoals";
import * as z from "../../zod";

/** The ids of the steps that sit on a dependency cycle (Kahn's algorithm leaves them over). */
function cycleMembers(steps: readonly Pick<PlanStep, "id" | "dependsOn">[]): string[] {
  const known = new Set(steps.map((step) => step.id));
  const waitingOn = new Map(
    steps.map((step) => [step.id, new Set(step.dependsOn.filter((id) => known.has(id)))]),
  );
  let progressed = true;
  while (progressed) {
    progressed = false;
    for (const [id, deps] of waitingOn) {
      if ([...deps].every((dep) => !waitingOn.has(dep))) {
        waitingOn.delete(id);
        progressed = true;
      }
    }
  }
  return [...waitingOn.keys()];
}

/** Unique ids, dependencies that exist, no cycles: what makes a list of steps runnable in order. */
function checkStructure(steps: readonly PlanStep[], ctx: z.core.$RefinementCtx): void {
  const seen = new Set<string>();
  steps.forEach((step, index) => {
    if (seen.has(step.id)) {
      ctx.addIssue({
        code: "custom",
        path: ["steps", index, "id"],
        message: `duplicate step id '${step.id}'`,
      });
    }
    seen.add(step.id);
  });
  steps.forEach((step, index) => {
    if (step.subgoal !== undefined && step.tool !== SPAWN_SUBGOAL_TOOL) {
      ctx.addIssue({
        code: "custom",
        path: ["steps", index, "tool"],
        message: `a step with a subgoal must name tool '${SPAWN_SUBGOAL_TOOL}'`,
      });
    }
  });
  steps.forEach((step, index) => {
    step.dependsOn.forEach((dep, depIndex) => {
      const path = ["steps", index, "dependsOn", depIndex];
      if (dep === step.id) ctx.addIssue({ code: "custom", path, message: "a step cannot depend on itself" });
      else if (!seen.has(dep))
        ctx.addIssue({ code: "custom", path, message: `no step '${dep}' in the plan` });
    });
  });
  const cycle = cycleMembers(
    steps.map((step) => ({ ...step, dependsOn: step.dependsOn.filter((dep) => dep !== step.id) })),
  );
  if (cycle.length > 0) {
    ctx.addIssue({
      code: "custom",
      path: ["steps"],
      message: `dependency cycle between ${cycle.join(", ")}`,
    });
  }
}

/** A runnable plan: 1..MAX_PLAN_STEPS steps, unique ids, existing dependencies, no cycles. Never empty. */
export const PlanSchema = /* @__PURE__ */ z.lazySchema(() =>
  z
    .object({
      steps: z
        .array(PlanStepSchema)
        .check(z.minLength(1, "a plan has at least one step"), z.maxLength(MAX_PLAN_STEPS)),
    })
    .check(z.superRefine((plan, ctx) => checkStructure(plan.steps, ctx))),
);
export type Plan = z.infer<typeof PlanSchema>;

/**
 * What the planner submits through `submit_plan`: the new steps (the whole plan, or the replacement
 * for the part being replanned). Its structure is checked on the merged plan (PlanSchema).
 */
export const PlanAnswerSchema = /* @__PURE__ */ z.lazySchema(() =>
  z.object({
    steps: z
      .array(PlanStepSchema)
      .check(z.minLength(1, "submit at least one step"), z.maxLength(MAX_PLAN_STEPS)),
  }),
);
export type PlanAnswer = z.infer<typeof PlanAnswerSchema>;

/** The `submit_plan` tool's input schema, generated from zod (the single source of the shape). */
export function planAnswerJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(PlanAnswerSchema, { io: "input", target: "draft-2020-12" }) as Record<
    string,
    unknown
  >;
}

/** zod issues as short lines a model and a human can read: `steps.1.dependsOn.0: no step 'x' in the plan`. */
export function issueLines(error: z.core.$ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`);
}
