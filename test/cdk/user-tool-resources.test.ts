import { join } from "node:path";
import type { Template } from "aws-cdk-lib/assertions";
import { Template as Templates } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../lib/goal-loops-app";
import { functionVersionId, type TemplateResource } from "./template-queries";

const PROJECT_DIR = join(import.meta.dirname, "..", "..");
const NO_BUNDLING = { "aws:cdk:bundling-stacks": [] };

/** Each role (by logical id, without its hash) and the JSON of its policies' statements. */
function statementsByRole(template: Template): Map<string, string> {
  const byRole = new Map<string, string>();
  for (const policy of Object.values(template.findResources("AWS::IAM::Policy"))) {
    for (const role of policy.Properties.Roles as { Ref: string }[]) {
      const name = role.Ref.replace(/Role[0-9A-F]{8}$/, "");
      byRole.set(
        name,
        `${byRole.get(name) ?? ""}${JSON.stringify(policy.Properties.PolicyDocument.Statement)}`,
      );
    }
  }
  return byRole;
}

function functionIdStartingWith(template: Template, prefix: string): string {
  const id = Object.keys(template.findResources("AWS::Lambda::Function")).find((candidate) =>
    candidate.startsWith(prefix),
  );
  if (id === undefined) throw new Error(`no function ${prefix}…`);
  return id;
}

function environmentOf(template: Template, id: string): Record<string, unknown> {
  const fn = template.findResources("AWS::Lambda::Function")[id] as TemplateResource;
  return (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
}

/** Roles whose statements mention `needle` (a logical id) together with `action`. */
function rolesAllowed(byRole: Map<string, string>, action: string, needle: string): string[] {
  return [...byRole]
    .filter(([, statements]) =>
      (JSON.parse(statements.replace(/\]\[/g, ",")) as { Action: unknown; Resource: unknown }[]).some(
        (statement) =>
          JSON.stringify(statement.Action).includes(action) &&
          JSON.stringify(statement.Resource).includes(needle),
      ),
    )
    .map(([role]) => role)
    .sort();
}

describe("a tool's table, its compensate function and an MCP server in the synthesized stack", () => {
  let template: Template;
  beforeAll(() => {
    // Prepare + Act: the example's reversible tool with its table and compensate function, and an
    // MCP server whose credential is a Secrets Manager secret
    const { stack } = buildApp({
      context: NO_BUNDLING,
      projectDir: PROJECT_DIR,
      config: {
        tools: {
          lambda: [
            {
              name: "set_ticket_priority",
              description: "Set a ticket's priority",
              entry: "examples/tools/set-ticket-priority.ts",
              risk: "reversible",
              table: "tickets",
              compensate: { entry: "examples/tools/restore-ticket-priority.ts" },
            },
          ],
          mcp: [
            {
              name: "github",
              url: "https://mcp.example.com/mcp",
              auth: { secretName: "goal-loops/github-mcp" },
            },
          ],
        },
      },
    });
    template = Templates.fromStack(stack);
  }, 120_000);

  it("lets exactly the steps that apply revisions, and the resume handler (abandoned plans), invoke exactly the compensate function, and tells them", () => {
    // Act
    const compensateId = functionIdStartingWith(template, "ToolssetticketpriorityCompensate");
    const allowed = rolesAllowed(statementsByRole(template), "lambda:InvokeFunction", compensateId);

    // Assess
    expect(allowed).toEqual([
      "PlanExecuteLoopObserve",
      "ReactLoopVerifyAndReason",
      "ReflexionLoopEvaluate",
      "ResumeHandlerFunction",
    ]);
    for (const prefix of [
      "ReactLoopVerifyAndReason",
      "PlanExecuteLoopObserve",
      "ReflexionLoopEvaluate",
      "ResumeHandlerFunction",
    ]) {
      const manifest = JSON.stringify(
        environmentOf(template, functionIdStartingWith(template, prefix)).TOOL_COMPENSATORS,
      );
      expect(manifest).toContain("set_ticket_priority");
      // This deploy's version of it: a step pinned to its version calls the compensator of that deploy.
      expect(manifest).toContain(functionVersionId(template, compensateId));
    }
  });

  it("gives the tool and its compensate function, and nothing else, their own table", () => {
    // Act
    const tables = Object.keys(template.findResources("AWS::DynamoDB::GlobalTable"));
    const [tableId] = tables;
    const allowed = rolesAllowed(statementsByRole(template), "dynamodb:PutItem", tableId ?? "");

    // Assess
    expect(tables).toHaveLength(1);
    expect(template.findResources("AWS::DynamoDB::GlobalTable")[tableId ?? ""]).toMatchObject({
      DeletionPolicy: "Retain",
    });
    expect(allowed.map((role) => role.replace(/Function.*$/, "")).sort()).toEqual([
      "Toolssetticketpriority",
      "ToolssetticketpriorityCompensate",
    ]);
    for (const prefix of ["ToolssetticketpriorityFunction", "ToolssetticketpriorityCompensateFunction"]) {
      expect(environmentOf(template, functionIdStartingWith(template, prefix)).TOOL_TABLE_NAME).toEqual({
        Ref: tableId,
      });
    }
  });

  it("lets the API and the acting steps invoke the McpGateway, and only the gateway read the server's secret", () => {
    // Act
    const byRole = statementsByRole(template);
    const gatewayId = functionIdStartingWith(template, "McpServersGatewayFunction");
    const invokers = rolesAllowed(byRole, "lambda:InvokeFunction", gatewayId);
    const secretReaders = rolesAllowed(byRole, "secretsmanager:GetSecretValue", "goal-loops/github-mcp");

    // Assess
    expect(invokers).toEqual([
      "GoalsApiHandler",
      "LoopStepsAct",
      "PlanExecuteLoopExecute",
      "ReactLoopVerifyAndReason",
      "ReflexionLoopAttempt",
    ]);
    expect(secretReaders).toEqual(["McpServersGateway"]);
    expect(
      environmentOf(template, functionIdStartingWith(template, "GoalsApiHandlerFunction")).MCP_SERVER_NAMES,
    ).toBe("github");
  });
});
