/** The files the four independent steps write, one each. */
export const FOUR_FILES = ["a", "b", "c", "d"] as const;

/**
 * A plan of four steps with no dependencies, each writing its own file, and the executor's four
 * turns, each answered after `latencyMs`. Execute call n is step n's turn (calls are numbered in
 * plan order).
 */
export function fourIndependentStepsFixture(latencyMs: number) {
  return {
    plan: [
      {
        toolUse: {
          name: "submit_plan",
          input: {
            steps: FOUR_FILES.map((id) => ({
              id: `write-${id}`,
              action: `Write ${id}.md naming version 2.0`,
              tool: "workspace_write",
              expected: `${id}.md names 2.0`,
              completion: { text: `${id}.md is written` },
            })),
          },
        },
        usage: { inputTokens: 900, outputTokens: 120 },
      },
    ],
    execute: FOUR_FILES.map((id) => ({
      toolUse: {
        name: "workspace_write",
        input: { path: `${id}.md`, content: `# ${id}\n\ngoal-loops 2.0\n` },
      },
      usage: { inputTokens: 700, outputTokens: 40 },
      latencyMs,
    })),
  };
}

/** The goal the fixture serves (model `scripted:<fixture>`): one artifact check per file. */
export function fourIndependentStepsGoal(fixture: string): Record<string, unknown> {
  return {
    objective: "Write four release files for goal-loops 2.0: a.md, b.md, c.md and d.md, each naming 2.0.",
    successChecks: FOUR_FILES.map((id) => ({
      id: `file-${id}`,
      description: `${id}.md names version 2.0`,
      verify: { kind: "artifact", path: `${id}.md`, contains: "2.0" },
    })),
    tools: ["workspace_write", "workspace_read"],
    pattern: "plan_execute",
    models: { default: `scripted:${fixture}` },
  };
}
