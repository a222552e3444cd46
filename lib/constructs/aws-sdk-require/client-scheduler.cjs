// Bundled in place of "@aws-sdk/client-scheduler" (see goal-loop-function.ts): require() the runtime's copy.
const id = "@aws-sdk/client-scheduler";
module.exports = require(id);
