import { useEffect, useState } from "preact/hooks";
import type { Timeline, TimelineApproval, TimelineStep } from "../../lambdas/core/fork/step-timeline";
import { REVISION_TYPES, type RevisionType } from "../../lambdas/core/goal/revision-types";
import { client, failureText, type GoalSnapshot } from "./api";
import { money } from "./format";

const ROLES = ["default", "reason", "plan", "execute", "attempt", "evaluate", "reflect", "judge"] as const;

/**
 * The fork form for one step: a revision applied on top of the contract as of the step, a model for
 * one role, and a decision for each approval asked after the step. Every field has a label.
 */
function ForkForm(props: {
  goalId: string;
  step: TimelineStep;
  approvals: readonly TimelineApproval[];
  onClose: () => void;
}) {
  const { goalId, step } = props;
  const [type, setType] = useState<RevisionType>("add_constraint");
  const [content, setContent] = useState("");
  const [role, setRole] = useState<string>("default");
  const [modelId, setModelId] = useState("");
  const [decisions, setDecisions] = useState<Record<string, string>>({});
  const [error, setError] = useState("");
  const later = props.approvals.filter((approval) => approval.afterStep >= step.step && approval.decision);
  const id = (name: string) => `fork-${step.step}-${name}`;

  const submit = async (event: Event) => {
    event.preventDefault();
    const chosen = Object.entries(decisions).filter(
      (entry): entry is [string, "approve" | "reject"] => entry[1] === "approve" || entry[1] === "reject",
    );
    try {
      const fork = await client.fork(goalId, {
        atStep: step.step,
        ...(content.trim() === "" ? {} : { revision: { type, content } }),
        ...(modelId.trim() === "" ? {} : { models: { [role]: modelId.trim() } }),
        ...(chosen.length === 0
          ? {}
          : { decisions: chosen.map(([approvalId, decision]) => ({ approvalId, decision })) }),
      });
      location.hash = `#/goals/${fork.goalId}`;
    } catch (failure) {
      setError(failureText(failure));
    }
  };

  return (
    <form
      class="fork-form"
      data-testid="fork-form"
      aria-label={`Fork after step ${step.step}`}
      onSubmit={submit}
    >
      <p>
        A new goal starts where this one stood after step {step.step} ({step.label}); only the calls after it
        are made and billed. Side effects of later steps (a notify sent, a file written) are not undone.
      </p>
      <div class="row">
        <label for={id("type")}>Revision type</label>
        <select
          id={id("type")}
          name="forkRevisionType"
          value={type}
          onChange={(e) => setType(e.currentTarget.value as RevisionType)}
        >
          {REVISION_TYPES.map((value) => (
            <option value={value} key={value}>
              {value}
            </option>
          ))}
        </select>
        <label for={id("revision")}>Revision</label>
        <input
          id={id("revision")}
          name="forkRevision"
          placeholder="what should have been different (optional)"
          value={content}
          onInput={(e) => setContent(e.currentTarget.value)}
        />
      </div>
      <div class="row">
        <label for={id("role")}>Model role</label>
        <select
          id={id("role")}
          name="forkModelRole"
          value={role}
          onChange={(e) => setRole(e.currentTarget.value)}
        >
          {ROLES.map((value) => (
            <option value={value} key={value}>
              {value}
            </option>
          ))}
        </select>
        <label for={id("model")}>Model</label>
        <input
          id={id("model")}
          name="forkModel"
          placeholder="model id (optional)"
          value={modelId}
          onInput={(e) => setModelId(e.currentTarget.value)}
        />
      </div>
      {later.map((approval) => (
        <div class="row" key={approval.approvalId}>
          <label for={id(approval.approvalId)}>
            Decision for “{approval.summary}” (was {approval.decision === "approve" ? "approved" : "rejected"}
            )
          </label>
          <select
            id={id(approval.approvalId)}
            name={`forkDecision-${approval.approvalId}`}
            value={decisions[approval.approvalId] ?? "keep"}
            onChange={(e) => setDecisions({ ...decisions, [approval.approvalId]: e.currentTarget.value })}
          >
            <option value="keep">ask again</option>
            <option value="approve">approve</option>
            <option value="reject">reject</option>
          </select>
        </div>
      ))}
      <div class="row">
        <button type="submit">Fork</button>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </div>
      {error && (
        <p role="alert" data-testid="fork-error">
          {error}
        </p>
      )}
    </form>
  );
}

/**
 * The goal's steps as a timeline, each with what it did, its cost and its checkpoint, and "Fork from
 * here"; the goal it was forked from, and the forks made of it, linked both ways.
 */
export function StepTimeline(props: { goal: GoalSnapshot; version: number }) {
  const { goal } = props;
  const [timeline, setTimeline] = useState<Timeline | string | undefined>();
  const [forks, setForks] = useState<GoalSnapshot[]>([]);
  const [open, setOpen] = useState<number | undefined>();
  useEffect(() => {
    client
      .steps(goal.goalId, { limit: 100 })
      .then(setTimeline, (error: unknown) =>
        setTimeline(error instanceof Error ? error.message : String(error)),
      );
    // The forks of this goal, from the caller's goals (a fork's snapshot names its source).
    client.listGoals({ limit: 1000 }).then(
      (answer) => setForks(answer.items.filter((item) => item.forkedFrom?.goalId === goal.goalId)),
      () => undefined,
    );
  }, [goal.goalId, props.version]);

  return (
    <section class="card" data-testid="timeline">
      <h3>Steps</h3>
      {goal.forkedFrom && (
        <p data-testid="forked-from">
          Forked from <a href={`#/goals/${goal.forkedFrom.goalId}`}>{goal.forkedFrom.goalId}</a> after step{" "}
          {goal.forkedFrom.step}
          {goal.usage.inherited
            ? `; inherited ${goal.usage.inherited.modelCalls} calls, ${money(goal.usage.inherited.costUsd)}, not billed again`
            : ""}
        </p>
      )}
      {forks.length > 0 && (
        <p data-testid="forks">
          Forks:{" "}
          {forks.map((fork) => (
            <span key={fork.goalId}>
              <a href={`#/goals/${fork.goalId}`}>{fork.goalId}</a> (after step {fork.forkedFrom?.step},{" "}
              {fork.status}){" "}
            </span>
          ))}
        </p>
      )}
      {typeof timeline === "string" && <p>{timeline}</p>}
      {typeof timeline === "object" && timeline.items.length === 0 && (
        <p class="muted">no step counted yet</p>
      )}
      {typeof timeline === "object" && (
        <ol class="timeline">
          {timeline.items.map((step) => (
            <li key={step.step} data-step={step.step} class={step.inherited ? "inherited" : ""}>
              <strong>
                {step.step}. {step.label}
              </strong>
              {step.inherited ? <span class="muted"> (inherited)</span> : null}{" "}
              {step.did.toolCalls
                .map((call) => `${call.name}${call.status === "error" ? " (failed)" : ""}`)
                .join(", ") ||
                step.did.text ||
                "no tool calls"}
              <span class="muted">
                {step.cost ? ` · ${money(step.cost.usd)}, ${step.cost.modelCalls} calls` : ""}
                {step.checkpoint ? ` · ${step.checkpoint.role} call ${step.checkpoint.call}` : ""}
              </span>{" "}
              <button
                type="button"
                aria-label={`Fork from here (after step ${step.step})`}
                disabled={!step.forkable}
                title={step.forkable ? undefined : step.whyNotForkable}
                onClick={() => setOpen(open === step.step ? undefined : step.step)}
              >
                Fork from here
              </button>
              {!step.forkable && step.whyNotForkable && <span class="muted"> ({step.whyNotForkable})</span>}
              {open === step.step && (
                <ForkForm
                  goalId={goal.goalId}
                  step={step}
                  approvals={timeline.approvals}
                  onClose={() => setOpen(undefined)}
                />
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
