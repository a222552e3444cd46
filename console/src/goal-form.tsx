import { Validator } from "@cfworker/json-schema";
import { useState } from "preact/hooks";
import { client, GoalLoopsApiError } from "./api";

/** The GoalSpec JSON Schema, generated from the zod GoalSpec when the console is built. */
declare const GOAL_SPEC_JSON_SCHEMA: Record<string, unknown>;

type Kind = "artifact" | "tool_result" | "approval" | "model_judge";

interface CheckDraft {
  id: string;
  description: string;
  kind: Kind;
  path: string;
  contains: string;
  tool: string;
  expectStatus: "success" | "error";
  prompt: string;
  rubric: string;
}

const emptyCheck = (n: number): CheckDraft => ({
  id: `check-${n}`,
  description: "",
  kind: "artifact",
  path: "",
  contains: "",
  tool: "",
  expectStatus: "success",
  prompt: "",
  rubric: "",
});

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
const list = (text: string) =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

function verifyOf(check: CheckDraft): Record<string, unknown> {
  switch (check.kind) {
    case "artifact":
      return { kind: "artifact", path: check.path, ...(check.contains ? { contains: check.contains } : {}) };
    case "tool_result":
      return {
        kind: "tool_result",
        tool: check.tool,
        expect: { status: check.expectStatus, ...(check.contains ? { contains: check.contains } : {}) },
      };
    case "approval":
      return { kind: "approval", prompt: check.prompt };
    case "model_judge":
      return { kind: "model_judge", rubric: check.rubric };
  }
}

/** `#/successChecks/0/id` → `successChecks.0.id`, the API's issue paths. */
const toPath = (pointer: string) => pointer.replace(/^#\/?/, "").split("/").filter(Boolean).join(".");

/**
 * Validates against the GoalSpec JSON Schema: each error at the deepest place it names (the
 * schema's own wrappers, `properties` and the like, report the same fault again higher up).
 */
export function schemaErrors(spec: unknown): Record<string, string> {
  const result = new Validator(GOAL_SPEC_JSON_SCHEMA as never, "2020-12", false).validate(spec);
  const errors: Record<string, string> = {};
  const wrappers = new Set(["properties", "items", "$ref", "allOf", "anyOf", "oneOf", "prefixItems"]);
  for (const error of result.errors) {
    if (wrappers.has(error.keyword)) continue;
    const path = toPath(error.instanceLocation);
    errors[path] ??= error.error;
  }
  return errors;
}

export function GoalForm(props: { onCreated: (goalId: string) => void }) {
  const [objective, setObjective] = useState("");
  const [pattern, setPattern] = useState("auto");
  const [checks, setChecks] = useState<CheckDraft[]>([emptyCheck(1)]);
  const [constraints, setConstraints] = useState("");
  const [tools, setTools] = useState("");
  const [requireFor, setRequireFor] = useState("");
  const [model, setModel] = useState("");
  const [maxSteps, setMaxSteps] = useState("");
  const [maxCostUsd, setMaxCostUsd] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);

  const spec = () => {
    const limits: Record<string, number> = {};
    if (maxSteps !== "") limits.maxSteps = Number(maxSteps);
    if (maxCostUsd !== "") limits.maxCostUsd = Number(maxCostUsd);
    return {
      objective,
      pattern,
      successChecks: checks.map((check) => ({
        id: check.id,
        description: check.description,
        verify: verifyOf(check),
      })),
      ...(lines(constraints).length > 0 ? { constraints: lines(constraints) } : {}),
      ...(list(tools).length > 0 ? { tools: list(tools) } : {}),
      ...(list(requireFor).length > 0 ? { approval: { requireFor: list(requireFor) } } : {}),
      ...(model !== "" ? { models: { default: model } } : {}),
      ...(Object.keys(limits).length > 0 ? { limits } : {}),
    };
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setMessage("");
    const body = spec();
    const found = schemaErrors(body);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      setMessage("The goal does not match the GoalSpec schema: see the fields marked below.");
      return;
    }
    setBusy(true);
    try {
      const accepted = await client.submitGoal(body);
      props.onCreated(accepted.goalId);
    } catch (error) {
      if (!(error instanceof GoalLoopsApiError)) throw error;
      const fromApi: Record<string, string> = {};
      for (const issue of error.body.issues ?? []) fromApi[issue.path] ??= issue.message;
      setErrors(fromApi);
      setMessage(`${error.status} ${error.code}: ${error.body.message}`);
    } finally {
      setBusy(false);
    }
  };

  const updateCheck = (index: number, patch: Partial<CheckDraft>) =>
    setChecks(checks.map((check, at) => (at === index ? { ...check, ...patch } : check)));
  const fieldError = (path: string) =>
    errors[path] === undefined ? null : (
      <div class="field-error" data-error-for={path}>
        {errors[path]}
      </div>
    );
  const otherErrors = Object.entries(errors).filter(([path]) => !KNOWN_FIELDS.test(path));

  return (
    <form class="card goal-form" onSubmit={submit} data-testid="goal-form">
      <h2>New goal</h2>
      {message && (
        <div class="form-message" role="alert">
          {message}
        </div>
      )}
      {otherErrors.map(([path, text]) => (
        <div class="field-error" data-error-for={path} key={path}>
          {path || "(goal)"}: {text}
        </div>
      ))}
      <label>
        Objective
        <textarea
          name="objective"
          value={objective}
          onInput={(e) => setObjective(e.currentTarget.value)}
          rows={2}
        />
      </label>
      {fieldError("objective")}
      <label>
        Pattern
        <select name="pattern" value={pattern} onChange={(e) => setPattern(e.currentTarget.value)}>
          {["auto", "react", "plan_execute", "reflexion"].map((value) => (
            <option value={value} key={value}>
              {value}
            </option>
          ))}
        </select>
      </label>
      <fieldset>
        <legend>Success checks</legend>
        {fieldError("successChecks")}
        {checks.map((check, index) => (
          <div class="check-draft" key={index} data-testid={`check-${index}`}>
            <input
              name={`successChecks.${index}.id`}
              placeholder="id"
              value={check.id}
              onInput={(e) => updateCheck(index, { id: e.currentTarget.value })}
            />
            {fieldError(`successChecks.${index}.id`)}
            <input
              name={`successChecks.${index}.description`}
              placeholder="what proves it"
              value={check.description}
              onInput={(e) => updateCheck(index, { description: e.currentTarget.value })}
            />
            {fieldError(`successChecks.${index}.description`)}
            <select
              aria-label={`Check ${index + 1}: how it is verified`}
              name={`successChecks.${index}.kind`}
              value={check.kind}
              onChange={(e) => updateCheck(index, { kind: e.currentTarget.value as Kind })}
            >
              <option value="artifact">artifact (a file)</option>
              <option value="tool_result">tool result</option>
              <option value="approval">human approval</option>
              <option value="model_judge">model judgement (weak)</option>
            </select>
            {check.kind === "artifact" && (
              <>
                <input
                  name={`successChecks.${index}.verify.path`}
                  placeholder="path, e.g. summary.md"
                  value={check.path}
                  onInput={(e) => updateCheck(index, { path: e.currentTarget.value })}
                />
                {fieldError(`successChecks.${index}.verify.path`)}
                <input
                  name={`successChecks.${index}.verify.contains`}
                  placeholder="contains (optional)"
                  value={check.contains}
                  onInput={(e) => updateCheck(index, { contains: e.currentTarget.value })}
                />
              </>
            )}
            {check.kind === "tool_result" && (
              <>
                <input
                  name={`successChecks.${index}.verify.tool`}
                  placeholder="tool"
                  value={check.tool}
                  onInput={(e) => updateCheck(index, { tool: e.currentTarget.value })}
                />
                {fieldError(`successChecks.${index}.verify.tool`)}
                <input
                  name={`successChecks.${index}.verify.expect.contains`}
                  placeholder="result contains (optional)"
                  value={check.contains}
                  onInput={(e) => updateCheck(index, { contains: e.currentTarget.value })}
                />
              </>
            )}
            {check.kind === "approval" && (
              <input
                name={`successChecks.${index}.verify.prompt`}
                placeholder="what the human is asked"
                value={check.prompt}
                onInput={(e) => updateCheck(index, { prompt: e.currentTarget.value })}
              />
            )}
            {check.kind === "model_judge" && (
              <input
                name={`successChecks.${index}.verify.rubric`}
                placeholder="rubric"
                value={check.rubric}
                onInput={(e) => updateCheck(index, { rubric: e.currentTarget.value })}
              />
            )}
            {fieldError(`successChecks.${index}.verify`)}
          </div>
        ))}
        <button type="button" onClick={() => setChecks([...checks, emptyCheck(checks.length + 1)])}>
          Add a check
        </button>
      </fieldset>
      <label>
        Constraints (one per line)
        <textarea
          name="constraints"
          value={constraints}
          onInput={(e) => setConstraints(e.currentTarget.value)}
        />
      </label>
      {fieldError("constraints")}
      <label>
        Tools (comma-separated)
        <input name="tools" value={tools} onInput={(e) => setTools(e.currentTarget.value)} />
      </label>
      {fieldError("tools")}
      <label>
        Approval required for (comma-separated tools)
        <input name="requireFor" value={requireFor} onInput={(e) => setRequireFor(e.currentTarget.value)} />
      </label>
      <label>
        Model (models.default)
        <input name="model" value={model} onInput={(e) => setModel(e.currentTarget.value)} />
      </label>
      {fieldError("models.default")}
      <div class="row">
        <label>
          maxSteps
          <input name="maxSteps" value={maxSteps} onInput={(e) => setMaxSteps(e.currentTarget.value)} />
        </label>
        <label>
          maxCostUsd
          <input name="maxCostUsd" value={maxCostUsd} onInput={(e) => setMaxCostUsd(e.currentTarget.value)} />
        </label>
      </div>
      {fieldError("limits.maxSteps")}
      {fieldError("limits.maxCostUsd")}
      <button type="submit" disabled={busy}>
        Start the goal
      </button>
    </form>
  );
}

/** Paths a field of the form shows its own error for; anything else is listed at the top. */
const KNOWN_FIELDS =
  /^(objective|successChecks|successChecks\.\d+\.(id|description|verify(\.(path|tool))?)|constraints|tools|models\.default|limits\.(maxSteps|maxCostUsd))$/;
