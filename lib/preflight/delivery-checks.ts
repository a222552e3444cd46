import { isOverdue, overdueMessage, secretAgeDays } from "../../lambdas/core/operations/secret-age";
import type { GoalLoopsConfig } from "../config/goal-loops-config";
import { type AccountReader, describeError } from "./account-reader";
import { blocker, type CheckResult, ok, skip, warn } from "./checklist";

/**
 * SES: each sender identity is verified (as itself or through its domain), sending is enabled, and,
 * in the SES sandbox, every recipient is verified too, since the sandbox mails only verified
 * identities (FACTS: SES authorizes a sandbox send against the sender and each recipient).
 */
export async function checkEmail(account: AccountReader, config: GoalLoopsConfig): Promise<CheckResult[]> {
  const senders = emailSenders(config);
  const recipients = emailRecipients(config);
  if (senders.length === 0) {
    return [skip("SES", "no e-mail configured (approvals.email.sender, notify e-mail channels)")];
  }
  const results: CheckResult[] = [];
  for (const { field, address } of senders) {
    results.push(await checkSender(account, field, address));
  }
  try {
    const ses = await account.sesAccount();
    if (!ses.sendingEnabled) {
      results.push(blocker("SES account", "sending is disabled for this account in this region"));
    } else if (ses.productionAccessEnabled) {
      results.push(ok("SES account", "production access: any recipient"));
    } else {
      results.push(await checkSandboxRecipients(account, recipients));
    }
  } catch (error) {
    results.push(blocker("SES account", `cannot read it: ${describeError(error)}`));
  }
  return results;
}

async function checkSender(account: AccountReader, field: string, address: string): Promise<CheckResult> {
  const check = `${field} ${address}`;
  try {
    const verifiedAs = await verifiedIdentity(account, address);
    return verifiedAs === undefined
      ? blocker(
          check,
          `neither ${address} nor ${domainOf(address)} is a verified SES identity in this region: verify one (SES console → Identities)`,
        )
      : ok(check, `verified${verifiedAs === address ? "" : ` through ${verifiedAs}`}`);
  } catch (error) {
    return blocker(check, `cannot read it: ${describeError(error)}`);
  }
}

async function checkSandboxRecipients(
  account: AccountReader,
  recipients: readonly string[],
): Promise<CheckResult> {
  const check = "SES account";
  const unverified: string[] = [];
  for (const address of recipients) {
    if ((await verifiedIdentity(account, address)) === undefined) unverified.push(address);
  }
  if (unverified.length === 0) {
    return ok(
      check,
      `in the SES sandbox (200 messages a day, verified recipients only); every configured recipient is verified`,
    );
  }
  return blocker(
    check,
    `in the SES sandbox, which mails verified identities only: ${unverified.join(", ")} ${unverified.length === 1 ? "is not; verify it" : "are not; verify them"}, or request production access (SES console → Account dashboard)`,
  );
}

/** The identity `address` is verified through: itself, or its domain; undefined when neither is. */
async function verifiedIdentity(account: AccountReader, address: string): Promise<string | undefined> {
  for (const name of [address, domainOf(address)]) {
    const identity = await account.emailIdentity(name);
    if (identity?.verifiedForSending === true) return name;
  }
  return undefined;
}

function emailSenders(config: GoalLoopsConfig): { field: string; address: string }[] {
  const senders: { field: string; address: string }[] = [];
  const approvalSender = config.approvals.email.sender;
  if (approvalSender !== undefined)
    senders.push({ field: "approvals.email.sender", address: approvalSender });
  const hasEmailChannel = Object.values(config.notify.channels).some((channel) => channel.type === "email");
  const notifySender = config.notify.emailSender;
  if (hasEmailChannel && notifySender !== undefined && notifySender !== approvalSender) {
    senders.push({ field: "notify.emailSender", address: notifySender });
  }
  return senders;
}

function emailRecipients(config: GoalLoopsConfig): string[] {
  const channelRecipients = Object.values(config.notify.channels).flatMap((channel) =>
    channel.type === "email" ? channel.to : [],
  );
  const approvers = config.approvals.email.sender === undefined ? [] : config.approvals.email.approvers;
  return [...new Set([...approvers, ...channelRecipients])];
}

function domainOf(address: string): string {
  return address.slice(address.lastIndexOf("@") + 1).toLowerCase();
}

/** Secrets Manager: every secret the configuration names exists and is not scheduled for deletion. */
export async function checkSecrets(account: AccountReader, config: GoalLoopsConfig): Promise<CheckResult[]> {
  const named = config.tools.mcp.flatMap((server, index) =>
    server.auth?.secretName === undefined
      ? []
      : [{ field: `tools.mcp.${index}.auth.secretName`, name: server.auth.secretName }],
  );
  if (named.length === 0)
    return [skip("secrets", "the configuration names none (tools.mcp[].auth.secretName)")];
  const results: CheckResult[] = [];
  for (const { field, name } of named) {
    const check = `${field} ${name}`;
    try {
      const secret = await account.secret(name);
      if (secret === undefined) {
        results.push(
          blocker(
            check,
            `no such secret in this region: create it first (aws secretsmanager create-secret --name ${name} --secret-string '<header value>')`,
          ),
        );
      } else if (secret.deletedDate !== undefined) {
        results.push(
          blocker(
            check,
            `scheduled for deletion on ${secret.deletedDate.toISOString().slice(0, 10)}: restore it (aws secretsmanager restore-secret --secret-id ${name})`,
          ),
        );
      } else {
        results.push(ok(check, "exists"));
      }
    } catch (error) {
      results.push(blocker(check, `cannot read it: ${describeError(error)}`));
    }
  }
  return results;
}

/**
 * `secrets.<name>.owner`: each owned secret preflight can find by name (an MCP server's
 * `auth.secretName`) whose value is older than its `rotateAfterDays` is a warning that names its
 * owner. The stack's own secrets get their names at deploy: their owners are listed, not aged here;
 * the deployed secret-age probe ages them all every month (lib/constructs/secret-ages.ts).
 */
export async function checkSecretAges(
  account: AccountReader,
  config: GoalLoopsConfig,
  now: Date,
): Promise<CheckResult[]> {
  const owned = Object.entries(config.secrets);
  // Nothing to say about secrets nobody was named for: the checklist stays as it was.
  if (owned.length === 0) return [];
  const results: CheckResult[] = [];
  for (const [key, { owner, rotateAfterDays }] of owned) {
    const check = `secrets.${key}`;
    const server = key.startsWith("mcp:") ? config.tools.mcp.find((s) => `mcp:${s.name}` === key) : undefined;
    const name = server?.auth?.secretName;
    if (name === undefined) {
      results.push(
        key.startsWith("mcp:")
          ? warn(check, `no MCP server with auth.secretName is called ${key.slice(4)} (owner ${owner})`)
          : ok(check, `owned by ${owner}, rotated every ${rotateAfterDays} days (docs/operations.md)`),
      );
      continue;
    }
    try {
      const changedDate = (await account.secret(name))?.changedDate;
      const ageDays = changedDate === undefined ? undefined : secretAgeDays(changedDate, now);
      results.push(
        ageDays !== undefined && isOverdue(ageDays, rotateAfterDays)
          ? warn(check, overdueMessage(name, ageDays, { owner, rotateAfterDays }))
          : ok(check, `owned by ${owner}${ageDays === undefined ? "" : `, ${ageDays} days old`}`),
      );
    } catch (error) {
      results.push(warn(check, `cannot read ${name}: ${describeError(error)}`));
    }
  }
  return results;
}
