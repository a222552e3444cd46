import { useEffect, useState } from "preact/hooks";
import { REVISION_TYPES, type RevisionType } from "../../lambdas/core/goal/revision-types";
import {
  client,
  failureText,
  followEvents,
  type GoalDetails,
  type GoalEvent,
  type GoalSnapshot,
  type HistoryEvent,
  type RunItem,
} from "./api";
import { money, when } from "./format";
import { StepTimeline } from "./step-timeline";

type Evidence = NonNullable<GoalDetails["checks"][number]["evidence"]>;

function EvidenceLine(props: { evidence: Evidence }) {
  const { evidence } = props;
  switch (evidence.kind) {
    case "artifact":
      return (
        <span>
          artifact <code>{evidence.path}</code> sha256 <code>{evidence.sha256.slice(0, 16)}</code>
        </span>
      );
    case "tool_result":
      return (
        <span>
          tool result of <code>{evidence.tool}</code> sha256 <code>{evidence.resultSha256.slice(0, 16)}</code>
        </span>
      );
    case "approval":
      return <span>approved by {evidence.decidedBy}</span>;
    case "model_judge":
      return (
        <span>
          <strong class="weak">model judgement — weak evidence</strong> ({evidence.modelId}):{" "}
          {evidence.verdict}
        </span>
      );
  }
}

/** The ReAct turns: each model turn with its reasoning summary (when the service gave one) and tool calls. */
function turnsOf(events: readonly GoalEvent[]) {
  const turns: { seq: number; text: string; reasoning?: string; calls: string[] }[] = [];
  let reasoning: string | undefined;
  for (const event of events) {
    if (event.type === "model.usage" && typeof event.reasoningSummary === "string")
      reasoning = event.reasoningSummary;
    if (event.type === "model.turn") {
      turns.push({
        seq: event.seq,
        text: String(event.text ?? ""),
        ...(reasoning === undefined ? {} : { reasoning }),
        calls: Array.isArray(event.toolCalls) ? event.toolCalls.map(String) : [],
      });
      reasoning = undefined;
    }
    if (event.type === "tool.called" && turns.length > 0) {
      const last = turns[turns.length - 1];
      if (last)
        last.calls = last.calls.map((call) =>
          call === event.name ? `${call} → ${String(event.status)}` : call,
        );
    }
  }
  return turns;
}

function Actions(props: { goal: GoalSnapshot; onDone: () => void }) {
  const { goal } = props;
  const [type, setType] = useState<RevisionType>("add_constraint");
  const [content, setContent] = useState("");
  const [checkId, setCheckId] = useState("");
  const [checkPath, setCheckPath] = useState("");
  const [maxCostUsd, setMaxCostUsd] = useState("");
  const [maxSteps, setMaxSteps] = useState("");
  const [result, setResult] = useState("");
  const run = async (what: string, call: () => Promise<unknown>) => {
    try {
      await call();
      setResult(`${what}: accepted`);
      props.onDone();
    } catch (error) {
      setResult(`${what}: ${failureText(error)}`);
    }
  };
  const changesContract = ["redirect", "pivot", "modify_objective"].includes(type);
  return (
    <section class="card" data-testid="actions">
      <h3>Steer</h3>
      <div class="row">
        <select
          aria-label="Revision type"
          name="revisionType"
          value={type}
          onChange={(e) => setType(e.currentTarget.value as RevisionType)}
        >
          {REVISION_TYPES.map((value) => (
            <option value={value} key={value}>
              {value}
            </option>
          ))}
        </select>
        <input
          name="revisionContent"
          placeholder="what changes"
          value={content}
          onInput={(e) => setContent(e.currentTarget.value)}
        />
      </div>
      {changesContract && (
        <div class="row">
          <input
            name="newCheckId"
            placeholder="new check id"
            value={checkId}
            onInput={(e) => setCheckId(e.currentTarget.value)}
          />
          <input
            name="newCheckPath"
            placeholder="artifact path it needs"
            value={checkPath}
            onInput={(e) => setCheckPath(e.currentTarget.value)}
          />
        </div>
      )}
      <button
        type="button"
        data-testid="revise"
        onClick={() =>
          run("revise", () =>
            client.revise(goal.goalId, {
              type,
              content,
              ...(changesContract && checkId
                ? {
                    successChecks: [
                      {
                        id: checkId,
                        description: `${checkPath} exists`,
                        verify: { kind: "artifact", path: checkPath },
                      },
                    ],
                  }
                : {}),
            }),
          )
        }
      >
        Revise
      </button>
      <div class="row">
        <button
          type="button"
          data-testid="pause"
          onClick={() => run("pause", () => client.pause(goal.goalId))}
        >
          Pause
        </button>
        <button
          type="button"
          data-testid="resume"
          onClick={() => run("resume", () => client.resume(goal.goalId))}
        >
          Resume
        </button>
        <button type="button" onClick={() => run("retry", () => client.retry(goal.goalId))}>
          Retry
        </button>
        <button type="button" onClick={() => run("cancel", () => client.cancel(goal.goalId))}>
          Cancel
        </button>
      </div>
      <div class="row">
        <input
          name="maxCostUsd"
          placeholder={`maxCostUsd (${goal.limits.maxCostUsd})`}
          value={maxCostUsd}
          onInput={(e) => setMaxCostUsd(e.currentTarget.value)}
        />
        <input
          name="maxSteps"
          placeholder={`maxSteps (${goal.limits.maxSteps})`}
          value={maxSteps}
          onInput={(e) => setMaxSteps(e.currentTarget.value)}
        />
        <button
          type="button"
          onClick={() =>
            run("raise limits", () =>
              client.setLimits(goal.goalId, {
                ...(maxCostUsd ? { maxCostUsd: Number(maxCostUsd) } : {}),
                ...(maxSteps ? { maxSteps: Number(maxSteps) } : {}),
              }),
            )
          }
        >
          Raise limits
        </button>
      </div>
      {result && <p data-testid="action-result">{result}</p>}
    </section>
  );
}

function Runs(props: { goalId: string; version: number }) {
  const [runs, setRuns] = useState<RunItem[] | string>([]);
  const [open, setOpen] = useState<{ runId: string; events: HistoryEvent[] } | undefined>();
  useEffect(() => {
    client.listRuns(props.goalId).then(
      (answer) => setRuns(answer.items),
      (error: unknown) => setRuns(failureText(error)),
    );
  }, [props.goalId, props.version]);
  const show = async (runId: string) => {
    const page = await client.call("getRunHistory", {
      params: { goalId: props.goalId, runId },
      query: { maxResults: 500 },
    });
    setOpen({ runId, events: page.events });
  };
  if (typeof runs === "string") return <p>{runs}</p>;
  return (
    <div data-testid="runs">
      <table>
        <thead>
          <tr>
            <th>run</th>
            <th>execution</th>
            <th>started</th>
            <th>stopped</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.runId}>
              <td>
                {run.runId}
                {run.current ? " (current)" : ""}
              </td>
              <td>
                {run.execution?.status ?? "not found"}
                {run.execution?.error ? ` ${run.execution.error}` : ""}
              </td>
              <td>{run.execution ? when(run.execution.startDate) : ""}</td>
              <td>{run.execution?.stopDate ? when(run.execution.stopDate) : ""}</td>
              <td>
                <button type="button" onClick={() => show(run.runId)}>
                  State history
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {open && (
        <table data-testid="run-history">
          <caption>Run {open.runId}: state history</caption>
          <tbody>
            {open.events.map((event) => (
              <tr key={event.id}>
                <td>{event.id}</td>
                <td>{event.type}</td>
                <td>{String(event.details?.name ?? event.details?.error ?? "")}</td>
                <td>{when(event.timestamp)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

export function GoalView(props: { goalId: string }) {
  const { goalId } = props;
  const [goal, setGoal] = useState<GoalSnapshot | undefined>();
  const [details, setDetails] = useState<GoalDetails | undefined>();
  const [events, setEvents] = useState<GoalEvent[]>([]);
  const [children, setChildren] = useState<GoalSnapshot[]>([]);
  const [version, setVersion] = useState(0);
  const [error, setError] = useState("");

  const refresh = async () => {
    try {
      const [snapshot, more] = await Promise.all([client.getGoal(goalId), client.getDetails(goalId)]);
      setGoal(snapshot);
      setDetails(more);
      // Sub-goals, where the API has them.
      client.listChildren(goalId).then(
        (answer) => setChildren(answer.items ?? []),
        () => undefined,
      );
    } catch (failure) {
      setError(failureText(failure));
    }
  };

  useEffect(() => {
    setEvents([]);
    void refresh();
    // Live: every committed event arrives here; the snapshot is read again after each.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = followEvents(goalId, 0, (event) => {
      setEvents((seen) => [...seen, event]);
      clearTimeout(timer);
      timer = setTimeout(() => {
        void refresh();
        setVersion((v) => v + 1);
      }, 50);
    });
    return () => {
      stop();
      clearTimeout(timer);
    };
  }, [goalId]);

  if (error) return <p class="card">{error}</p>;
  if (!goal || !details) return <p>Loading…</p>;
  const turns = turnsOf(events);
  return (
    <div class="goal-view" data-testid="goal-view">
      <section class="card">
        <h2>
          Goal <code>{goal.goalId}</code>{" "}
          <span class={`status status-${goal.status}`} data-testid="goal-status">
            {goal.status}
          </span>
        </h2>
        <p>
          {goal.pattern} ({goal.patternReason}) · revision {goal.revision} · run {goal.runId} · step{" "}
          {goal.steps} · {Math.round(goal.progress.overall * 100)}%
          {/* The deployed version its runs keep to the end, whatever was deployed since. */}
          {goal.version !== null && (
            <>
              {" "}
              · version <code data-testid="goal-version">{goal.version}</code>
            </>
          )}
        </p>
        {goal.waitingFor && (
          <p class="waiting">
            Waiting for {goal.waitingFor.kind}: {goal.waitingFor.reason}
          </p>
        )}
        {goal.activity?.kind === "waiting_for_capacity" && (
          <p class="waiting" data-testid="capacity-wait">
            Running, waiting for {goal.activity.model} capacity ({goal.activity.role} call,{" "}
            {goal.activity.reason === "throttled" ? "Bedrock throttled it" : "its quota is booked"}) since{" "}
            {new Date(goal.activity.since).toLocaleTimeString()}, until{" "}
            {new Date(goal.activity.until).toLocaleTimeString()}
          </p>
        )}
        {goal.pauseRequested && (
          <p class="waiting" data-testid="pause-requested">
            Pause requested by {goal.pauseRequested.by}
            {goal.pauseRequested.reason ? `: ${goal.pauseRequested.reason}` : ""}; it pauses at its next step
            boundary
          </p>
        )}
        {goal.stopReason && goal.status !== "completed" && (
          <p class="stopped">
            Stopped: {goal.stopReason.kind} {goal.stopReason.detail}: {goal.stopReason.message}
          </p>
        )}
      </section>
      <section class="card" data-testid="contract">
        <h3>Contract</h3>
        <p data-testid="objective">{details.contract.objective}</p>
        {details.contract.constraints.length > 0 && (
          <ul>
            {details.contract.constraints.map((constraint) => (
              <li key={constraint}>constraint: {constraint}</li>
            ))}
          </ul>
        )}
        <table data-testid="checks">
          <tbody>
            {details.checks.map((check) => (
              <tr key={check.id} data-check={check.id} class={`check-${check.state}`}>
                <td>{check.state === "met" ? "✓" : check.state === "partial" ? "◐" : "○"}</td>
                <td>
                  <strong>{check.id}</strong> {check.description}
                  <div class="muted">verify: {check.verify.kind}</div>
                </td>
                <td data-testid={`evidence-${check.id}`}>
                  {check.evidence ? (
                    <EvidenceLine evidence={check.evidence} />
                  ) : (
                    <span class="muted">no evidence yet</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {details.contractProposal && (
          <p class="waiting">
            Proposed new contract ({details.contractProposal.outcome}):{" "}
            {details.contractProposal.checks.map((check) => check.id).join(", ")}
          </p>
        )}
      </section>
      <Actions goal={goal} onDone={() => void refresh()} />
      <StepTimeline goal={goal} version={version} />
      {details.plan && (
        <section class="card" data-testid="plan">
          <h3>Plan v{details.plan.version}</h3>
          <ol>
            {details.plan.steps.map((step) => (
              <li key={step.id} class={`step-${step.status}`}>
                <strong>{step.status}</strong> {step.id}: {step.action}
                {step.tool ? ` (tool ${step.tool})` : ""}
                {step.lastResult ? ` — ${step.lastResult}` : ""}
              </li>
            ))}
          </ol>
        </section>
      )}
      {(details.attempts > 0 || details.lessons.length > 0) && (
        <section class="card" data-testid="lessons">
          <h3>Reflexion: {details.attempts} attempts</h3>
          <ol>
            {details.lessons.map((lesson) => (
              <li key={lesson.attempt}>
                attempt {lesson.attempt}: {lesson.text}
              </li>
            ))}
          </ol>
        </section>
      )}
      {turns.length > 0 && (
        <section class="card" data-testid="turns">
          <h3>Turns</h3>
          {turns.map((turn) => (
            <div class="turn" key={turn.seq}>
              {turn.reasoning && <p class="reasoning">reasoning: {turn.reasoning}</p>}
              {turn.text && <p>{turn.text}</p>}
              {turn.calls.length > 0 && <p class="muted">tools: {turn.calls.join(", ")}</p>}
            </div>
          ))}
        </section>
      )}
      <section class="card" data-testid="usage">
        <h3>Cost and tokens</h3>
        <table>
          <thead>
            <tr>
              <th>role</th>
              <th>calls</th>
              <th>in</th>
              <th>out (incl. thinking)</th>
              <th>cache read share</th>
              <th>cost</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(goal.usageByRole).map(([role, usage]) =>
              usage ? (
                <tr key={role}>
                  <td>{role}</td>
                  <td>{usage.modelCalls}</td>
                  <td>{usage.inputTokens}</td>
                  <td>{usage.outputTokens}</td>
                  <td>
                    {usage.inputTokens + usage.cacheReadTokens === 0
                      ? "–"
                      : `${Math.round((100 * usage.cacheReadTokens) / (usage.inputTokens + usage.cacheReadTokens))}%`}
                  </td>
                  <td>{money(usage.costUsd)}</td>
                </tr>
              ) : null,
            )}
            <tr>
              <td>
                <strong>all</strong>
              </td>
              <td>{goal.usage.modelCalls}</td>
              <td>{goal.usage.inputTokens}</td>
              <td>{goal.usage.outputTokens}</td>
              <td />
              <td data-testid="cost">{money(goal.usage.costUsd)}</td>
            </tr>
            {goal.usage.inherited && (
              <tr data-testid="inherited-usage">
                <td>inherited from {goal.forkedFrom?.goalId}, not billed here</td>
                <td>{goal.usage.inherited.modelCalls}</td>
                <td>{goal.usage.inherited.inputTokens}</td>
                <td>{goal.usage.inherited.outputTokens}</td>
                <td />
                <td>{money(goal.usage.inherited.costUsd)}</td>
              </tr>
            )}
          </tbody>
        </table>
      </section>
      <section class="card" data-testid="revisions">
        <h3>Revisions</h3>
        {details.revisions.length === 0 && details.queuedRevisions.length === 0 && <p class="muted">none</p>}
        {details.queuedRevisions.map((revision) => (
          <p key={revision.revisionId}>
            queued: {revision.type} “{revision.content}” by {revision.requestedBy}
          </p>
        ))}
        {details.revisions.map((revision) => (
          <div key={revision.revisionId}>
            <p>
              revision {revision.revision}: {revision.type} “{revision.content}” by {revision.requestedBy},{" "}
              {when(revision.appliedAt)}
            </p>
            {revision.reconcile && (
              <p class="muted">
                reconcile: {revision.reconcile.summary} · kept {revision.reconcile.keep.length}, discarded{" "}
                {revision.reconcile.discard.length}, new {revision.reconcile.add.length}
              </p>
            )}
          </div>
        ))}
      </section>
      {children.length > 0 && (
        <section class="card" data-testid="children">
          <h3>Sub-goals</h3>
          <ul>
            {children.map((child) => (
              <li key={child.goalId}>
                <a href={`#/goals/${child.goalId}`}>{child.goalId}</a> {child.status} ·{" "}
                {Math.round(child.progress.overall * 100)}%
              </li>
            ))}
          </ul>
        </section>
      )}
      <section class="card">
        <h3>Runs</h3>
        <Runs goalId={goalId} version={version} />
      </section>
      <section class="card" data-testid="events">
        <h3>Live events</h3>
        <ol class="events">
          {events.map((event) => (
            <li key={event.seq} data-seq={event.seq}>
              <code>#{event.seq}</code> {event.type} <span class="muted">{when(event.at)}</span>
            </li>
          ))}
        </ol>
      </section>
    </div>
  );
}
