import { Duration } from "aws-cdk-lib";
import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import { Construct } from "constructs";
import type { McpServerEntry } from "../../lambdas/tools/mcp-servers";
import { type McpServerConfig, mcpServerEntry } from "../config/mcp-servers-config";
import { GoalLoopFunction } from "./goal-loop-function";
import { acknowledgeWildcardResource } from "./nag-acknowledgments";

export interface McpServersProps {
  /** The configuration's `tools.mcp`, defaults applied. */
  readonly servers: readonly McpServerConfig[];
}

/** Room around the longest connect plus call, for the secret read and the answer. */
const GATEWAY_MARGIN = Duration.seconds(10);

/**
 * The user's MCP servers (DESIGN §6 "Tools") behind one function, McpGateway, which holds the MCP
 * client, reads the servers' auth secrets and reaches their URLs. The goals API invokes it to list
 * tools when a goal starts; the acting steps invoke it to call them. Neither gets the client's
 * bundle nor a secret, and only the gateway's role may read the secrets.
 */
export class McpServers extends Construct {
  readonly gateway: GoalLoopFunction;
  /** The server names, for the goals API to tell an MCP grant from an unknown tool. */
  readonly names: readonly string[];
  /** Each server's auth secret (`auth.secretName`), by server name: the gateway reads them. */
  readonly authSecrets: ReadonlyMap<string, ISecret>;

  constructor(scope: Construct, id: string, props: McpServersProps) {
    super(scope, id);
    this.names = props.servers.map((server) => server.name);
    const longest = Math.max(
      ...props.servers.map((server) => server.connectTimeoutSeconds + server.callTimeoutSeconds),
    );
    const manifest: McpServerEntry[] = props.servers.map(mcpServerEntry);
    this.gateway = new GoalLoopFunction(this, "Gateway", {
      bundle: "mcp-gateway",
      description: "goal-loops McpGateway: list and call the configured MCP servers' tools",
      timeout: Duration.seconds(longest).plus(GATEWAY_MARGIN),
      memorySize: 512,
      environment: { MCP_SERVERS: JSON.stringify(manifest) },
    });
    const authSecrets = new Map<string, ISecret>();
    for (const server of props.servers) {
      if (server.auth?.secretName === undefined) continue;
      const secret = Secret.fromSecretNameV2(this, `${server.name}Auth`, server.auth.secretName);
      authSecrets.set(server.name, secret);
      secret.grantRead(this.gateway);
      acknowledgeWildcardResource(
        this.gateway.role,
        `${secret.secretArn}-??????`,
        `Secrets Manager appends six random characters to a secret's ARN; the grant names the configured secret '${server.auth.secretName}' of MCP server '${server.name}' and nothing else.`,
      );
    }
    this.authSecrets = authSecrets;
  }

  /** The variables a function that lists or calls MCP tools needs. */
  get environment(): Readonly<Record<string, string>> {
    return {
      // This deploy's version: an acting step (pinned to its own version) reaches the same gateway code.
      MCP_GATEWAY_FUNCTION: this.gateway.version.functionArn,
      MCP_SERVER_NAMES: this.names.join(","),
    };
  }

  /** Lets `grantee` invoke the gateway, and nothing else of this construct. */
  grantInvoke(grantee: GoalLoopFunction): void {
    this.gateway.function.grantInvoke(grantee);
    acknowledgeWildcardResource(
      grantee.role,
      `${this.gateway.function.functionArn}:*`,
      "Versions and aliases of the McpGateway function only: the acting steps and the API may invoke exactly this function.",
    );
  }
}
