import type { GoalRecord } from "../../../../lambdas/core/goal/goal-record";
import type { GoalSpecInput } from "../../../../lambdas/core/goal/goal-spec";
import type { StepResult } from "../../../../lambdas/core/loop/step-result";
import { attempt } from "../../../../lambdas/core/patterns/reflexion/attempt";
import { evaluate } from "../../../../lambdas/core/patterns/reflexion/evaluate";
import { reflect } from "../../../../lambdas/core/patterns/reflexion/reflect";
import type { ReflexionSettings } from "../../../../lambdas/core/patterns/reflexion/reflexion-deps";
import type { GoalStore } from "../../../../lambdas/core/ports/goal-store";
import { DEFAULT_TOOL_NAMES } from "../../../../lambdas/tools/default-tools";
import { createPatternGoal, type GoalTable, LoopDriver, type ScriptedModel } from "../../loop/support";

/** Two models, so a test can tell which tier served a role (both priced by `scripted:*`). */
export const HEAVY_MODEL_ID = "scripted:reflexion-heavy";
export const FAST_MODEL_ID = "scripted:reflexion-fast";

export const REFLEXION_SETTINGS: ReflexionSettings = {
  models: { heavyModelId: HEAVY_MODEL_ID, fastModelId: FAST_MODEL_ID },
  continueAsNewAfter: 50,
  defaultTools: DEFAULT_TOOL_NAMES,
};

/** A reflexion spec whose one check is judged by the evaluator; override any field. */
export function reflexionSpec(overrides: Partial<GoalSpecInput> = {}): GoalSpecInput {
  return {
    objective: "Write a release note for 2.0 to note.md that a user can act on",
    pattern: "reflexion",
    successChecks: [
      {
        id: "actionable",
        description: "note.md tells users how to upgrade",
        verify: { kind: "model_judge", rubric: "PASS only if the note names the upgrade command" },
      },
    ],
    ...overrides,
  };
}

/** Stores a new running reflexion goal at run `r1`, as the API does. */
export function createReflexionGoal(
  table: Pick<GoalTable, "adapters">,
  spec: GoalSpecInput,
): Promise<GoalRecord> {
  return createPatternGoal(table, spec, "reflexion");
}

/**
 * The Reflexion steps: NextAction routes verify → Evaluate, reflect → Reflect, attempt → Attempt,
 * act → Act → Evaluate.
 */
export class ReflexionLoopDriver extends LoopDriver<ReflexionSettings> {
  constructor(table: GoalTable, model: ScriptedModel, settings: ReflexionSettings = REFLEXION_SETTINGS) {
    super(table, model, settings);
  }

  evaluate(position: StepResult, goals?: GoalStore): Promise<StepResult> {
    return evaluate(this.ports(goals), this.settings, position);
  }

  reflect(position: StepResult, goals?: GoalStore): Promise<StepResult> {
    return reflect(this.ports(goals), this.settings, position);
  }

  attempt(position: StepResult, goals?: GoalStore): Promise<StepResult> {
    return attempt(this.ports(goals), this.settings, position);
  }

  step(position: StepResult, goals?: GoalStore): Promise<StepResult> | undefined {
    switch (position.next) {
      case "verify":
        return this.evaluate(position, goals);
      case "reflect":
        return this.reflect(position, goals);
      case "attempt":
        return this.attempt(position, goals);
      case "act":
        return this.act(position);
      default:
        return undefined;
    }
  }
}
