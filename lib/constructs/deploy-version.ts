import { createHash } from "node:crypto";
import { Lazy, Stack } from "aws-cdk-lib";
import type { CfnStateMachine, StateMachine } from "aws-cdk-lib/aws-stepfunctions";
import type { Construct } from "constructs";

/** What the label is while it is being computed: it may not hash itself. */
const SELF = "(this version)";

/**
 * The label of one deploy of the loops (`0.1.0-3f2a9c1e`): the package's version and a hash of
 * every pattern's state machine definition as synthesized. A definition names the Lambda versions
 * of its steps, whose logical ids CDK derives from each function's code and configuration, so the
 * label changes exactly when something a goal runs changes, and two synths of the same sources give
 * the same one. Each definition carries the label (its RunsOnVersion state), so a new label is a
 * new revision of every state machine: every pattern publishes a version per deploy, and all of
 * them describe themselves with the one label (versionDescription).
 *
 * Resolved at synth, once the definitions are complete; while it hashes them, the label inside them
 * reads as a fixed placeholder.
 */
export class DeployVersion {
  /** The label as a token: use it in definitions and descriptions. */
  readonly label: string;
  private readonly machines: StateMachine[] = [];
  private computing = false;
  private computed: string | undefined;

  constructor(
    private readonly scope: Construct,
    private readonly release: string,
  ) {
    this.label = Lazy.uncachedString({ produce: () => this.resolve() });
  }

  /** A state machine whose definition the label covers (each pattern's). */
  add(stateMachine: StateMachine): void {
    this.machines.push(stateMachine);
  }

  private resolve(): string {
    if (this.computing) return SELF;
    if (this.computed === undefined) {
      this.computing = true;
      try {
        const stack = Stack.of(this.scope);
        const definitions = this.machines.map((machine) =>
          stack.resolve((machine.node.defaultChild as CfnStateMachine).definitionString),
        );
        const hash = createHash("sha256").update(JSON.stringify(definitions)).digest("hex");
        this.computed = `${this.release}-${hash.slice(0, 8)}`;
      } finally {
        this.computing = false;
      }
    }
    return this.computed;
  }
}
