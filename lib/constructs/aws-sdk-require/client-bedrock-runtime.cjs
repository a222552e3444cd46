// Bundled in place of "@aws-sdk/client-bedrock-runtime" (see goal-loop-function.ts): require() the runtime's copy.
const id = "@aws-sdk/client-bedrock-runtime";
module.exports = require(id);
