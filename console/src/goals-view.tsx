import { useEffect, useState } from "preact/hooks";
import type { GoalStatus } from "../../lambdas/core/goal/goal-record";
import { client, failureText, type GoalSnapshot } from "./api";
import { age, money } from "./format";
import { GoalForm } from "./goal-form";

const STATUSES = ["", "running", "waiting", "paused", "completed", "cancelled", "terminated", "failed"];

export function GoalsView() {
  const [status, setStatus] = useState("");
  const [goals, setGoals] = useState<GoalSnapshot[]>([]);
  const [error, setError] = useState("");
  useEffect(() => {
    client.listGoals(status === "" ? {} : { status: status as GoalStatus }).then(
      (page) => {
        setGoals([...page.items].sort((a, b) => b.createdAt.localeCompare(a.createdAt)));
        setError("");
      },
      (failure: unknown) => setError(failureText(failure)),
    );
  }, [status]);
  return (
    <div class="goals-view" data-testid="goals-view">
      <section class="card">
        <h2>Goals</h2>
        <label>
          Status{" "}
          <select name="status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            {STATUSES.map((value) => (
              <option value={value} key={value}>
                {value === "" ? "any" : value}
              </option>
            ))}
          </select>
        </label>
        {error && <p role="alert">{error}</p>}
        <table data-testid="goals">
          <thead>
            <tr>
              <th>goal</th>
              <th>status</th>
              <th>pattern</th>
              <th>progress</th>
              <th>cost</th>
              <th>age</th>
            </tr>
          </thead>
          <tbody>
            {goals.map((goal) => (
              <tr key={goal.goalId} data-goal={goal.goalId}>
                <td>
                  <a href={`#/goals/${goal.goalId}`}>{goal.objective.slice(0, 80)}</a>
                  <div class="muted">
                    <code>{goal.goalId}</code>
                  </div>
                </td>
                <td>
                  <span class={`status status-${goal.status}`}>{goal.status}</span>
                </td>
                <td>{goal.pattern}</td>
                <td>
                  <progress max={1} value={goal.progress.overall} /> {Math.round(goal.progress.overall * 100)}
                  %
                </td>
                <td>{money(goal.usage.costUsd)}</td>
                <td>{age(goal.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <GoalForm
        onCreated={(goalId) => {
          location.hash = `#/goals/${goalId}`;
        }}
      />
    </div>
  );
}
