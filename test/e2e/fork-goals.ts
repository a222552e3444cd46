/**
 * The goals the fork tests (end to end and in the browser) start from; their fixtures are
 * test/e2e/fixtures/fork-*.json, in which every turn has a usage of its own.
 */

/** A goal of six ReAct passes over report.md; its fixture gives every turn a usage of its own. */
export const REACT_SIX = {
  objective: "Write the 3.0 release report in six passes",
  successChecks: [
    {
      id: "report-final",
      description: "report.md is the final report",
      verify: { kind: "artifact", path: "report.md", contains: "FINAL" },
    },
  ],
  limits: { maxSteps: 10 },
  pattern: "react",
  models: { default: "scripted:fork-react-six" },
};

/** Plan-and-Execute: write the notes, then tell ops (notify, irreversible: a human approves it). */
export const PLAN_GATE = {
  objective: "Publish the 3.0 release notes and tell ops",
  successChecks: [
    {
      id: "notes",
      description: "NOTES.md names 3.0",
      verify: { kind: "artifact", path: "NOTES.md", contains: "3.0" },
    },
    {
      id: "ops-told",
      description: "ops were notified",
      verify: { kind: "tool_result", tool: "notify", expect: { status: "success" } },
    },
  ],
  tools: ["workspace_write", "notify"],
  limits: { maxSteps: 10, maxReplans: 0 },
  pattern: "plan_execute",
  models: { default: "scripted:fork-plan-gate" },
};
