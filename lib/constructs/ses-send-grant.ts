import { Stack, Token } from "aws-cdk-lib";
import { Grant, type IGrantable } from "aws-cdk-lib/aws-iam";
import type { IEmailIdentity } from "aws-cdk-lib/aws-ses";
import type { IConstruct } from "constructs";

export interface SesSendGrantProps {
  /** The verified identity mail is sent from: an address or a domain. */
  readonly senderIdentity: IEmailIdentity;
  /** The `From` address, when it is not the identity itself (an address of a domain identity). */
  readonly fromAddress?: string;
  /** Every address mail may go to (approvers, a notify channel's recipients). */
  readonly recipients: readonly string[];
}

/**
 * `ses:SendEmail` (and `SendRawEmail`) on every identity SES authorizes a send against: the sender's
 * address and its domain, because a sender verified through its domain is authorized against the
 * domain identity; and, because an account in the SES sandbox authorizes against each recipient's
 * identity too, every recipient's address and domain. Granting on the sender alone works only out of
 * the sandbox and only for an address verified as itself (FACTS: SES sandbox authorization).
 */
export function grantSesSend(scope: IConstruct, grantee: IGrantable, props: SesSendGrantProps): Grant {
  const names = new Set<string>();
  const addName = (name: string) => {
    if (Token.isUnresolved(name)) return;
    names.add(name.toLowerCase());
    const domain = domainOf(name);
    if (domain !== undefined) names.add(domain);
  };
  for (const name of [props.fromAddress, props.senderIdentity.emailIdentityName, ...props.recipients]) {
    if (name !== undefined) addName(name);
  }
  const stack = Stack.of(scope);
  const resourceArns = [
    props.senderIdentity.emailIdentityArn,
    ...[...names]
      .filter((name) => name !== props.senderIdentity.emailIdentityName.toLowerCase())
      .sort()
      .map((name) => stack.formatArn({ service: "ses", resource: "identity", resourceName: name })),
  ];
  return Grant.addToPrincipal({ grantee, actions: ["ses:SendEmail", "ses:SendRawEmail"], resourceArns });
}

/** `example.com` of `ops@example.com`; undefined for a domain. */
function domainOf(name: string): string | undefined {
  const at = name.lastIndexOf("@");
  return at < 0 ? undefined : name.slice(at + 1).toLowerCase();
}
