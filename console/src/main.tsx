import { render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { ApprovalsView } from "./approvals-view";
import { GoalView } from "./goal-view";
import { GoalsView } from "./goals-view";
import "./style.css";
import { TenantBar } from "./tenant-bar";

/** `#/goals`, `#/goals/<id>`, `#/approvals`: a hash route, so every view has a link of its own. */
function useRoute(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener("hashchange", onChange);
    return () => removeEventListener("hashchange", onChange);
  }, []);
  return hash.replace(/^#/, "") || "/goals";
}

function App() {
  const route = useRoute();
  const goal = /^\/goals\/([^/]+)$/.exec(route)?.[1];
  // A sign-in that just completed re-reads every view as the signed-in tenant.
  const [session, setSession] = useState(0);
  const onSignedIn = useCallback(() => setSession((count) => count + 1), []);
  return (
    <>
      <header>
        <strong>goal-loops</strong>
        <nav>
          <a href="#/goals">Goals</a>
          <a href="#/approvals">Approvals</a>
        </nav>
        <TenantBar onSignedIn={onSignedIn} />
      </header>
      <main key={session}>
        {goal !== undefined ? (
          <GoalView goalId={decodeURIComponent(goal)} key={goal} />
        ) : route === "/approvals" ? (
          <ApprovalsView />
        ) : (
          <GoalsView />
        )}
      </main>
    </>
  );
}

const root = document.getElementById("app");
if (root) render(<App />, root);
