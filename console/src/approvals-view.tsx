import { useEffect, useState } from "preact/hooks";
import { APPROVAL_STATUSES, type ApprovalStatus } from "../../lambdas/core/ports/approval-statuses";
import { type ApprovalView, client, GoalLoopsApiError } from "./api";
import { when } from "./format";

function Approval(props: { approval: ApprovalView; onDecided: () => void }) {
  const { approval } = props;
  const [comment, setComment] = useState("");
  const [answer, setAnswer] = useState("");
  const decide = async (decision: "approve" | "reject") => {
    try {
      const decided = await client.decideApproval(
        approval.approvalId,
        decision,
        comment.trim() ? comment : undefined,
      );
      setAnswer(`${decided.status}`);
      props.onDecided();
    } catch (error) {
      if (!(error instanceof GoalLoopsApiError)) throw error;
      // 409: somebody decided first; 410: expired or superseded. Said as it is.
      const plain =
        error.status === 409
          ? "Already decided by someone else"
          : error.status === 410
            ? "Expired: it can no longer be decided"
            : error.code;
      setAnswer(`${error.status} ${plain}: ${error.body.message}`);
    }
  };
  return (
    <li class="card approval" data-approval={approval.approvalId}>
      <p>
        <strong>{approval.action.kind}</strong> for goal{" "}
        <a href={`#/goals/${approval.goalId}`}>{approval.goalId}</a> (revision {approval.revision}, run{" "}
        {approval.runId})
      </p>
      <p>{approval.action.summary}</p>
      {approval.action.calls?.map((call, index) => (
        <div class="call" key={index}>
          <code>{call.name}</code>
          {call.server && (
            <span class="muted">
              {" "}
              MCP server {call.server}, tool {call.tool}, definition sha256 <code>{call.definitionHash}</code>
            </span>
          )}
          <pre>{JSON.stringify(call.input, null, 2)}</pre>
        </div>
      ))}
      <p class="muted">
        requested {when(approval.requestedAt)} · expires {when(approval.expiresAt)}
      </p>
      {approval.status === "pending" ? (
        <div class="row">
          <input
            name="comment"
            placeholder="comment"
            value={comment}
            onInput={(e) => setComment(e.currentTarget.value)}
          />
          <button type="button" onClick={() => decide("approve")}>
            Approve
          </button>
          <button type="button" onClick={() => decide("reject")}>
            Reject
          </button>
        </div>
      ) : (
        <p>{approval.status}</p>
      )}
      {answer && (
        <p class="decision" role="status">
          {answer}
        </p>
      )}
    </li>
  );
}

export function ApprovalsView() {
  const [items, setItems] = useState<ApprovalView[]>([]);
  const [status, setStatus] = useState<ApprovalStatus>("pending");
  const load = () => client.listApprovals(status).then(setItems);
  useEffect(() => {
    void load();
  }, [status]);
  return (
    <section data-testid="approvals-view">
      <div class="card">
        <h2>Approvals</h2>
        <select
          aria-label="Approval status"
          name="approvalStatus"
          value={status}
          onChange={(e) => setStatus(e.currentTarget.value as ApprovalStatus)}
        >
          {APPROVAL_STATUSES.map((value) => (
            <option value={value} key={value}>
              {value}
            </option>
          ))}
        </select>
        {items.length === 0 && <p>No {status} approvals.</p>}
      </div>
      <ul class="approvals">
        {items.map((approval) => (
          <Approval approval={approval} key={approval.approvalId} onDecided={() => undefined} />
        ))}
      </ul>
    </section>
  );
}
