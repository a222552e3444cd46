// Bundled in place of "@aws-sdk/client-secrets-manager" (see goal-loop-function.ts): require() the runtime's copy.
const id = "@aws-sdk/client-secrets-manager";
module.exports = require(id);
