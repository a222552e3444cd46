// Bundled in place of "@aws-sdk/client-eventbridge" (see goal-loop-function.ts): require() the runtime's copy.
const id = "@aws-sdk/client-eventbridge";
module.exports = require(id);
