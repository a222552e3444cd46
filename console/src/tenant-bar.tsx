import { useEffect, useState } from "preact/hooks";
import type { TenantMe } from "../../lambdas/handlers/api/contract/response-schemas";
import { client } from "./api";
import { completeSignIn, currentToken, discoverIssuer, signIn, signOut } from "./auth";

type Issuer = Awaited<ReturnType<typeof discoverIssuer>>;

/** The limits as one line: `2 goals at once · 30 starts/min · $5/day · 50 % of each model`. */
function limitsText(limits: TenantMe["limits"]): string {
  const parts = [
    limits.concurrentGoals === undefined ? undefined : `${limits.concurrentGoals} goals at once`,
    limits.startsPerMinute === undefined ? undefined : `${limits.startsPerMinute} starts/min`,
    limits.spendPerDayUsd === undefined ? undefined : `$${limits.spendPerDayUsd}/day`,
    limits.modelShare === undefined ? undefined : `${Math.round(limits.modelShare * 100)} % of each model`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? "no limits" : parts.join(" · ");
}

/**
 * The header's account corner: the tenant the console acts for and its limits, and sign-in and
 * sign-out when the API has an issuer. Calls made before any sign-in go as the console's default
 * caller (locally the loopback tenant; through `goal-loops console`, the signing AWS principal).
 */
export function TenantBar({ onSignedIn }: { readonly onSignedIn: () => void }) {
  const [issuer, setIssuer] = useState<Issuer>(undefined);
  const [me, setMe] = useState<TenantMe | undefined>(undefined);
  const [problem, setProblem] = useState<string | undefined>(undefined);

  useEffect(() => {
    void (async () => {
      const failed = await completeSignIn();
      if (failed !== undefined) setProblem(failed);
      else if (currentToken() !== undefined) onSignedIn();
      setIssuer(await discoverIssuer());
      setMe(await client.myTenant().catch(() => undefined));
    })();
  }, [onSignedIn]);

  const signedIn = currentToken() !== undefined;
  return (
    <div class="tenant-bar" data-testid="tenant-bar">
      {me !== undefined && (
        <span data-testid="tenant">
          tenant <strong>{me.tenantId}</strong> ({me.via === "jwt" ? me.caller.replace(/^jwt:/, "") : me.via})
          · <span data-testid="tenant-limits">{limitsText(me.limits)}</span>
        </span>
      )}
      {problem !== undefined && <span role="alert">{problem}</span>}
      {issuer !== undefined && !signedIn && (
        <button type="button" onClick={() => void signIn(issuer)}>
          Sign in
        </button>
      )}
      {signedIn && (
        <button
          type="button"
          onClick={() => {
            signOut();
            location.reload();
          }}
        >
          Sign out
        </button>
      )}
    </div>
  );
}
