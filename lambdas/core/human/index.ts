/**
 * human/: the human in the loop (DESIGN §5): the human-input events every door publishes to the
 * bus, the resume handler that matches one against the waiting goal (approval decisions, limit
 * extensions, revisions, resume, cancel), deciding an approval, the `/goal` directive, and sending
 * approval requests to Slack and email (./slack, ./email).
 * Not here: the gates that park a run and ask (loop/gates), or the HTTP routes and Lambda wiring of
 * the doors (lambdas/handlers).
 *
 * Handlers and other core files import the files directly, never this index, so that each Lambda
 * bundle carries only what it uses (test/architecture checks it).
 */
export * from "./decide-approval";
export * from "./directive";
export * from "./email";
export * from "./handle-cancel";
export * from "./handle-pause";
export * from "./handle-resume";
export * from "./handle-revision";
export * from "./human-input-events";
export * from "./limit-extension";
export * from "./notify-approval";
export * from "./resume-handler";
export * from "./slack";
