import type { GoalSpecInput } from "../../lib/client/index";

/**
 * A ReAct goal that must tell ops through `notify` (irreversible, granted, not pre-authorized), so
 * it waits for one human approval before it can complete. The end-to-end files differ only in the
 * objective, the scripted model's fixture, the limits and the approval channels.
 */
export function gatedNotifyGoal(
  options: {
    readonly objective?: string;
    /** The scripted model's fixture (`scripted:<fixture>`): its first turn calls notify. */
    readonly fixture?: string;
    readonly limits?: GoalSpecInput["limits"];
    readonly approval?: GoalSpecInput["approval"];
  } = {},
): GoalSpecInput {
  return {
    objective: options.objective ?? "Tell ops about the release",
    successChecks: [
      {
        id: "ops-told",
        description: "notify succeeded",
        verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
      },
    ],
    tools: ["notify"],
    limits: options.limits ?? { maxSteps: 10 },
    ...(options.approval === undefined ? {} : { approval: options.approval }),
    pattern: "react",
    models: { default: `scripted:${options.fixture ?? "notify-needs-approval"}` },
  };
}
