import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { ApprovalsView } from "./approvals-view";
import { GoalView } from "./goal-view";
import { GoalsView } from "./goals-view";
import "./style.css";

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
  return (
    <>
      <header>
        <strong>goal-loops</strong>
        <nav>
          <a href="#/goals">Goals</a>
          <a href="#/approvals">Approvals</a>
        </nav>
      </header>
      <main>
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
